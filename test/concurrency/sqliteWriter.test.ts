import test from 'ava';
import { db } from '../../src/db';
import { useServer } from '../helpers/server';

// SQLite takes one writer at a time, and each statement runs on one of libuv's four threadpool
// threads. A write sent while a transaction holds the lock must wait its turn in JavaScript: waiting in
// SQLite's busy handler, writes fill the threads, the transaction gets none for its next statement, and
// they fail with SQLITE_BUSY when their busy timeout runs out (db/sql.ts). On PostgreSQL the same test
// checks that plain writes beside a transaction succeed.
const ctx = useServer(test);

test('plain writes sent while a transaction holds the lock all succeed, and the transaction commits', async (t) => {
  await ctx.server.within(async () => {
    const { sql } = db();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const transaction = sql.transaction(async (query) => {
      await query('DELETE FROM outbox WHERE id = $1', [-1]);
      entered();
      await held;
      await query('DELETE FROM outbox WHERE id = $1', [-2]);
      return 'committed';
    });
    await inside;
    // Twice as many as the threadpool has threads, all sent while the transaction holds the lock.
    const writes = Array.from({ length: 8 }, (_, i) => sql.query('DELETE FROM outbox WHERE id = $1', [-10 - i]));
    await new Promise((resolve) => setImmediate(resolve));
    release();
    t.is(await transaction, 'committed');
    const settled = await Promise.allSettled(writes);
    t.deepEqual(
      settled.map((s) => (s.status === 'fulfilled' ? 'ok' : String((s.reason as Error).message))),
      Array.from({ length: 8 }, () => 'ok'),
    );
  });
});
