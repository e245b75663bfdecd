import test from 'ava';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { useCluster } from '../helpers/cluster';

/**
 * A room's fairness ledger under two instances on one PostgreSQL (docs/fairness.md): 200 rolls at
 * once, half through each instance, with explosions so that rolls draw different numbers of leaves;
 * afterwards the drawn leaves are exactly 0..next_draw-1, each drawn by one value, none skipped or
 * reused, across batch boundaries (batches created by both instances as they went), and the rolls verify.
 */
const cluster = useCluster(test, 2);
const run = promisify(execFile);

test('two instances, one room, 200 concurrent rolls: every leaf drawn once, in order, none skipped', async (t) => {
  const [a, b] = cluster.current.instances;
  const owner = await cluster.current.newUser(0);
  const room = await owner.api.post('/room', { name: 'Ledger' });
  t.is(room.status, 201);
  const slug = room.body.data.slug as string;
  const rolls = await Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      (i % 2 ? b! : a!).api.as(owner.key).post('/roll', { equation: i % 3 ? '3d6!' : '1d20', theme: 'standard', room: slug, client_seed: `seed-${i}` }),
    ),
  );
  t.true(
    rolls.every((r) => r.status === 201),
    rolls.find((r) => r.status !== 201)?.text.slice(0, 200),
  );
  const draws = new Map<number, string>();
  for (const r of rolls) {
    for (const v of r.body.data.values) {
      const at = v.proof.batch * 256 + v.proof.leaf;
      t.false(draws.has(at), `leaf ${at} drawn twice`);
      draws.set(at, v.uuid);
    }
  }
  const ledger = (await owner.api.get(`/room/${slug}/fairness`)).body.data;
  t.is(ledger.next_draw, draws.size, 'the ledger advanced by exactly the values drawn');
  t.deepEqual(
    [...draws.keys()].sort((x, y) => x - y),
    Array.from({ length: draws.size }, (_, i) => i),
    'no gap',
  );
  t.true(draws.size > 512, `${draws.size} draws span three batches or more`);
  for (let batch = 0; batch * 256 < draws.size; batch++) {
    const published = (await b!.api.as(owner.key).get(`/room/${slug}/fairness/batch/${batch}`)).body.data;
    for (const leaf of published.leaves) {
      const at = batch * 256 + leaf.leaf;
      if (at < draws.size) t.is(leaf.value, draws.get(at), `leaf ${at} names its value`);
      else t.is(leaf.state, 'unused');
    }
  }
  // each roll's own draws are consecutive leaves: a roll claims its leaves in one go
  for (const r of rolls) {
    const at = r.body.data.values.map((v: { proof: { batch: number; leaf: number } }) => v.proof.batch * 256 + v.proof.leaf);
    t.deepEqual(
      at,
      at.map((_: number, i: number) => at[0] + i),
    );
  }
  const verifier = await run(process.execPath, [
    path.resolve('scripts/verify-roll.mjs'),
    '--base',
    a!.url,
    '--key',
    owner.key,
    '--room',
    slug,
    '--limit',
    '100',
  ]);
  t.regex(verifier.stdout, /all checks passed/);
});
