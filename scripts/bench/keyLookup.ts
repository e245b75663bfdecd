/**
 * What "last used" (src/accounts, the developer settings) adds to authenticating a key that is not in
 * the key cache: `findKeyByHash` (which now also reads api_keys.last_used_at) and, for a key whose
 * recorded use is over a minute old, one UPDATE. Against, in the same run, the lookup as it was (the
 * same SELECT without the column).
 *
 * Each a tinybench task (lib/micro.ts), wall time, one call after another; median of 3 rounds.
 *
 *   npx tsx scripts/bench/keyLookup.ts     env: KEYS (5,000), LOOKUPS (3,000 per round), DATABASE_URL (else SQLite in a
 *   temp dir; give PostgreSQL an empty database of its own)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash, randomUUID } from 'node:crypto';
import { db, openDatabase } from '../../src/db';
import { migrate } from '../../src/db/migrate';
import { findKeyByHash, touchKeyLastUsed, userColumns } from '../../src/users/store';
import { medianOfRounds, runMicro } from './lib/micro';

const KEYS = Number(process.env.KEYS || 5_000);
const LOOKUPS = Number(process.env.LOOKUPS || 3_000);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dice-key-lookup-'));
const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL || null, dataDir });
await migrate(database);

const user = await db().models.User.create({ uuid: randomUUID(), username: `bench-${Date.now()}`, name: 'Bench', isRegistered: true });
const hashes: string[] = [];
for (let i = 0; i < KEYS; i += 1000) {
  const rows = Array.from({ length: Math.min(1000, KEYS - i) }, (_, j) => ({
    userId: user.id,
    name: 'bench',
    prefix: 'dk_bench',
    keyHash: createHash('sha256')
      .update(`${Date.now()} ${i + j}`)
      .digest('hex'),
    revokedAt: null,
  }));
  hashes.push(...rows.map((r) => r.keyHash));
  await db().models.ApiKey.bulkCreate(rows);
}
const keyIds = (await db().models.ApiKey.findAll({ attributes: ['id'] })).map((k) => k.id);

const BEFORE = `SELECT k.id AS "keyId", k.key_hash AS "keyHash", k.revoked_at AS "revokedAt", ${userColumns('u')}
  FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.key_hash = $1`;

/** LOOKUPS calls a task after 100 of warm-up; its key moves on each call. */
const LIMITS = { time: 0, iterations: LOOKUPS, warmupIterations: 100 };
let next = 0;
const nextHash = () => hashes[next++ % hashes.length]!;

// Rounds alternate the two, so that neither gets the warm caches (pages, prepared statements) alone.
const perLookup = await medianOfRounds({ baseline: () => db().sql.query(BEFORE, [nextHash()]), lookup: () => findKeyByHash(nextHash()) }, 3, LIMITS);
// Every key's first use in a minute: the lookup and the write (a fresh `now` each time, so each writes).
let t = Date.now();
const { firstUse: firstUseRun } = await runMicro(
  { firstUse: () => findKeyByHash(nextHash()).then(() => touchKeyLastUsed(keyIds[(next - 1) % keyIds.length]!, new Date((t += 61_000)))) },
  LIMITS,
);
const [baseline, lookup, firstUse] = [perLookup.baseline!, perLookup.lookup!, firstUseRun!.mean].map((ms) => ms * 1000); // µs
console.log(`${database.dialect}, ${KEYS} keys, ${LOOKUPS} lookups each, one after another`);
console.log(`lookup without last_used_at (baseline): ${baseline.toFixed(0)} µs`);
console.log(`lookup with last_used_at:               ${lookup.toFixed(0)} µs (${(lookup / baseline).toFixed(2)}x)`);
console.log(`lookup + the once-a-minute write:       ${firstUse.toFixed(0)} µs (${(firstUse / baseline).toFixed(2)}x)`);
await database.close();
fs.rmSync(dataDir, { recursive: true, force: true });
