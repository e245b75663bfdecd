import { perApp } from '../../lib/appContext';
import { db } from '../../db';

/** The server's own secrets (made by migration 0014), read once per server (lib/appContext.ts): they never change. */
const secrets = perApp(() => ({ csrfKey: null as Promise<Buffer> | null }));

export function csrfSigningKey(): Promise<Buffer> {
  const state = secrets();
  state.csrfKey ??= db()
    .sql.query<{ value: string }>("SELECT value FROM server_secrets WHERE name = 'csrf'")
    .then(([row]) => {
      if (!row) throw new Error('server_secrets has no csrf key: run the migrations');
      return Buffer.from(row.value, 'hex');
    })
    .catch((err) => {
      state.csrfKey = null;
      throw err;
    });
  return state.csrfKey;
}
