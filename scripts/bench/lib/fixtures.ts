import { Api } from '../../../test/helpers/http';

/** A guest user on the server at `base`: its key and a client using it. */
export async function newGuest(base: string): Promise<{ key: string; api: Api }> {
  const api = new Api(base);
  const res = await api.post('/user');
  if (res.status !== 201) throw new Error(`guest creation failed: ${res.status} ${res.text}`);
  return { key: res.body.data, api: api.as(res.body.data) };
}

/** A public room owned by `owner`, with `others` joined as participants. Answers its slug. */
export async function roomWith(owner: Api, others: Api[], name = 'bench'): Promise<string> {
  const created = await owner.post('/room', { name, is_public: true });
  if (created.status !== 201) throw new Error(`room creation failed: ${created.status} ${created.text}`);
  const slug = created.body.data.slug as string;
  for (const other of others) {
    const joined = await other.post(`/room/${slug}/participant`, {});
    if (joined.status !== 200 && joined.status !== 201) throw new Error(`join failed: ${joined.status} ${joined.text}`);
  }
  return slug;
}

/** The environment every benchmarked instance gets: limits out of the way, quiet logs. */
export function benchEnv(extra: Record<string, string>): Record<string, string> {
  return {
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL || 'warn',
    RATE_LIMIT_PER_MINUTE: '1000000000',
    GUESTS_PER_HOUR: '1000000000',
    SHUTDOWN_TIMEOUT_MS: '2000',
    PUSHER_APP_SECRET: 'bench-pusher-secret-0123456789',
    ...extra,
  };
}
