import test from 'ava';
import { useServer } from '../helpers/server';
import { runCli } from '../helpers/cli';
import { closeAll, connectUser, connectWelcomed, type Client } from '../helpers/sockets';

/**
 * The operators' CLI revoking a key, as its own process, next to a running server without Redis: the
 * two share only the database, and the server notices from there (src/users/revocationWatch.ts) within
 * the 1 s the README promises. The server keeps its defaults for what else would catch it (sockets
 * re-checked every 30 s) and caches keys for the longest TTL allowed, so that the key cache or the
 * re-validation cannot pass for the watch.
 */
/**
 * Half the key cache's TTL: a refusal before then can only be the watch's doing (neither the cache nor
 * the 30 s re-validation could). The times are logged, not asserted: which mechanism acted is the
 * behaviour, and a loaded machine stretches how long it takes.
 */
const WATCH_BOUND_MS = 5000;
const ctx = useServer(test, { CACHE_TTL_MS: '10000' });

const clients: Client[] = [];
test.after.always(() => closeAll(...clients));

test('key:revoke from the CLI without Redis: the server answers 401 for the key and drops its sockets (the database watch, not the cache TTL)', async (t) => {
  const owner = await ctx.server.newUser();
  const player = await ctx.server.newUser();
  const created = await owner.api.post('/room', { name: 'Revoked by the operator', is_public: true });
  const slug = created.body.data.slug as string;
  t.is((await player.api.post(`/room/${slug}/participant`, {})).status, 200);
  const room = await connectWelcomed(ctx.server.url, slug, { token: player.key }, clients);
  const user = await connectUser(ctx.server.url, player.key);
  clients.push(user);
  const dropped = [room, user].map((c) => c.waitForDisconnect(60_000).then((reason) => ({ reason, at: Date.now() })));
  for (const d of dropped) d.catch(() => undefined);
  // The key is in the server's cache now: only a push (or the watch) can take it out before 8-10 s.
  t.is((await player.api.get('/user')).status, 200);

  const { database } = ctx.server;
  const out = await runCli({ DATA_DIR: database.dataDir, DATABASE_URL: database.databaseUrl ?? '', REDIS_URL: '', REDIS_CLUSTER_NODES: '' }, [
    'key:revoke',
    player.key,
  ]);
  const exitedAt = Date.now();
  t.is(out.code, 0, out.stdout + out.stderr);
  t.regex(out.stdout, /Revoked 1 key\(s\)\. A server running without Redis on this database refuses them and drops their open sockets within 1 s\./);

  // REST: asked again and again until it refuses, up to WATCH_BOUND_MS.
  let status = 200;
  while (Date.now() - exitedAt < WATCH_BOUND_MS) {
    status = (await player.api.get('/user')).status;
    if (status === 401) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const refusedAfter = Date.now() - exitedAt;
  t.is(status, 401, `the key still worked ${refusedAfter} ms after the CLI exited`);
  t.log(`REST refused the key ${refusedAfter} ms after the CLI exited`);

  // Sockets: both went, as a kick, before the same bound.
  const deadline = new Promise<'still connected'>((resolve) =>
    setTimeout(() => resolve('still connected'), Math.max(0, exitedAt + WATCH_BOUND_MS - Date.now())),
  );
  for (const [i, drop] of dropped.entries()) {
    const result = await Promise.race([drop, deadline]);
    t.not(result, 'still connected', `the ${i ? '/user' : 'room'} socket was still connected ${WATCH_BOUND_MS} ms after the CLI exited`);
    if (result !== 'still connected') {
      t.is(result.reason, 'io server disconnect');
      t.log(`the ${i ? '/user' : 'room'} socket dropped ${result.at - exitedAt} ms after the CLI exited`);
    }
  }
  t.is((await owner.api.get('/user')).status, 200, "the owner's key was not touched");
});
