/**
 * What one poll of src/users/revocationWatch.ts costs a server without Redis (it runs every 250 ms):
 * `keysRevokedSince` over the index of api_keys.revoked_at, against `SELECT 1` on the same connection
 * (the floor of any query) in the same run, with many keys issued and some revoked long ago.
 *
 * Both tinybench tasks (lib/micro.ts), wall time, one call after another.
 *
 *   npx tsx scripts/bench/revocationPoll.ts     env: KEYS (20,000), POLLS (2,000), DATABASE_URL (else SQLite in a
 *   temp dir; give PostgreSQL an empty database of its own: the bench migrates it and fills it with keys)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash, randomUUID } from 'node:crypto';
import { db, openDatabase } from '../../src/db';
import { migrate } from '../../src/db/migrate';
import { keysRevokedSince } from '../../src/users/store';
import { runMicro } from './lib/micro';

const KEYS = Number(process.env.KEYS || 20_000);
const POLLS = Number(process.env.POLLS || 2_000);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dice-revocation-poll-'));
const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL || null, dataDir });
await migrate(database);

const user = await db().models.User.create({ uuid: randomUUID(), username: `bench-${Date.now()}`, name: 'Bench', isRegistered: true });
const longAgo = new Date(Date.now() - 3_600_000);
for (let i = 0; i < KEYS; i += 1000) {
  await db().models.ApiKey.bulkCreate(
    Array.from({ length: Math.min(1000, KEYS - i) }, (_, j) => ({
      userId: user.id,
      name: 'bench',
      prefix: 'dk_bench',
      keyHash: createHash('sha256')
        .update(`${Date.now()} ${i + j}`)
        .digest('hex'),
      revokedAt: (i + j) % 10 === 0 ? longAgo : null,
    })),
  );
}

// As autovacuum would have by then: the planner needs the statistics to choose the index.
if (database.dialect === 'postgres') await database.sequelize.query('ANALYZE api_keys');

const perPoll = await runMicro(
  { floor: () => database.sequelize.query('SELECT 1'), poll: () => keysRevokedSince(new Date(Date.now() - 10_000)) },
  { time: 0, iterations: POLLS, warmupIterations: 100 },
);
const [floor, poll] = [perPoll.floor!.mean, perPoll.poll!.mean].map((ms) => ms * 1000); // µs
console.log(`${database.dialect}, ${KEYS} keys (${KEYS / 10} revoked an hour ago), ${POLLS} polls each`);
console.log(`SELECT 1 (baseline): ${floor.toFixed(0)} µs per query`);
console.log(`one poll:            ${poll.toFixed(0)} µs (${(poll / floor).toFixed(2)}x the baseline), wall time, one after another`);
await database.close();
fs.rmSync(dataDir, { recursive: true, force: true });
