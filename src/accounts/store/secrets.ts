import { db } from '../../db';

/** The server's own secrets (made by migration 0014), read once per process: they never change. */
let csrfKey: Promise<Buffer> | null = null;

export function csrfSigningKey(): Promise<Buffer> {
  csrfKey ??= db()
    .sql.query<{ value: string }>("SELECT value FROM server_secrets WHERE name = 'csrf'")
    .then(([row]) => {
      if (!row) throw new Error('server_secrets has no csrf key: run the migrations');
      return Buffer.from(row.value, 'hex');
    })
    .catch((err) => {
      csrfKey = null;
      throw err;
    });
  return csrfKey;
}
