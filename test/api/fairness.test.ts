import test from 'ava';
import { execFile } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { useServer } from '../helpers/server';
import { closeAll, connectWelcomed, type Client } from '../helpers/sockets';
import { rollOk, table, type NewUser } from './rolls.support';
import { BatchTree, drawFace, leafCommitment } from '../../src/fairness/crypto';

/**
 * Provable fairness (docs/fairness.md): every drawn value carries a proof that scripts/verify-roll.mjs
 * (spawned, as anyone would run it) checks against the published ledger; hidden dice verify for their
 * roller only until revealed; tampering with any part is caught and named.
 */
const ctx = useServer(test);
const clients: Client[] = [];
test.after.always(() => closeAll(...clients));

const run = promisify(execFile);
const VERIFIER = path.resolve('scripts/verify-roll.mjs');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fairness-'));
let files = 0;

/** Runs the verifier on `roll` (written to a file), online when `as` is given; answers its exit code and output. */
async function verify(roll: unknown, as?: NewUser, extra: string[] = []): Promise<{ code: number; out: string }> {
  const file = path.join(dir, `roll-${files++}.json`);
  fs.writeFileSync(file, JSON.stringify(roll));
  const args = [VERIFIER, file, ...(as ? ['--base', ctx.server.url, '--key', as.key] : []), ...extra];
  try {
    const { stdout } = await run(process.execPath, args);
    return { code: 0, out: stdout };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout + e.stderr };
  }
}

const seed = () => createHash('sha256').update(String(Math.random())).digest('hex').slice(0, 32);
type AnyRoll = { uuid: string; values: any[]; fairness: { ledger: string; client_seed: string | null }; [k: string]: unknown };

test('the construction: commitments, a 256-leaf Merkle tree with 8-hash paths, HMAC draws with rejection', (t) => {
  const secrets = Buffer.alloc(256 * 32);
  for (let i = 0; i < secrets.length; i++) secrets[i] = i % 251;
  const tree = new BatchTree(secrets);
  const s0 = secrets.subarray(0, 32);
  t.deepEqual(tree.commitment(0), createHash('sha256').update('odice-leaf:').update(s0).digest());
  t.deepEqual(leafCommitment(s0), tree.commitment(0));
  t.is(tree.path(5).length, 8);
  // the root by hand: pairs up, level by level
  let level = Array.from({ length: 256 }, (_, i) => tree.commitment(i));
  while (level.length > 1)
    level = Array.from({ length: level.length / 2 }, (_, i) =>
      createHash('sha256')
        .update(level[2 * i]!)
        .update(level[2 * i + 1]!)
        .digest(),
    );
  t.deepEqual(tree.root, level[0]);
  // a draw: the first 4 bytes of HMAC(s, "c:0"), big-endian, mod N when under the limit
  const x = createHmac('sha256', s0).update('seed:0').digest().readUInt32BE(0);
  const n = 6;
  t.true(x < Math.floor(2 ** 32 / n) * n, 'this fixed example is accepted at j = 0');
  t.is(drawFace(s0, 'seed', n), x % n);
  t.is(drawFace(s0, 'seed', 1), 0);
});

test('a roll over REST carries fairness and a proof per drawn value; the verifier passes it offline and against the ledger', async (t) => {
  const { roller, slug } = await table(ctx.server);
  const client_seed = seed();
  const roll = (await rollOk(roller, {
    dice: [
      { type: 'd20', theme: 'standard' },
      { type: 'd6', theme: 'standard', value: 4 },
      { type: 'mod', value: 3 },
      { type: 'd10x', theme: 'standard' },
      { type: 'd10', theme: 'standard' },
    ],
    room: slug,
    client_seed,
  })) as unknown as AnyRoll;
  t.is(roll.fairness.client_seed, client_seed);
  t.regex(roll.fairness.ledger, /^[0-9a-f-]{36}$/);
  const [d20, user, mod, tens, units] = roll.values;
  t.is(user.is_user_value, true);
  t.is(user.proof, null, 'a value the client supplied carries no proof');
  t.is(mod.proof, null, 'nor does a modifier');
  for (const v of [d20, tens, units]) {
    t.deepEqual(Object.keys(v.proof).sort(), ['batch', 'commitment', 'faces', 'leaf', 'path', 'root', 'secret']);
    t.is(v.proof.path.length, 8);
    t.regex(v.proof.secret, /^[0-9a-f]{64}$/);
  }
  t.is(d20.proof.faces, 20);
  t.is(tens.proof.faces, 10);
  t.is(tens.proof.leaf + 1, units.proof.leaf, 'consecutive leaves, in value order');
  t.is(drawFace(Buffer.from(d20.proof.secret, 'hex'), client_seed, 20) + 1, d20.value, 'the face follows from secret and seed');

  const offline = await verify(roll);
  t.is(offline.code, 0, offline.out);
  t.regex(offline.out, /3 value\(s\) verified to the face/);
  const online = await verify(roll, roller);
  t.is(online.code, 0, online.out);
  t.regex(online.out, /roots checked against the published ledger/);
  // The same through the API alone: --roll fetches it
  const fetched = await verify({ data: [] }, roller, ['--roll', roll.uuid]);
  t.is(fetched.code, 0, fetched.out);

  // The publication: the ledger says how far it is used; its batch names each value that drew a leaf
  const ledger = (await roller.api.get(`/room/${slug}/fairness`)).body.data;
  t.is(ledger.ledger, roll.fairness.ledger);
  t.true(ledger.batches.length >= 2, 'a batch ahead of the current one is published');
  const batch = (await roller.api.get(`/room/${slug}/fairness/batch/${d20.proof.batch}`)).body.data;
  t.is(batch.root, d20.proof.root);
  t.is(batch.leaves.length, 256);
  t.is(batch.leaves[d20.proof.leaf].value, d20.uuid);
  t.is(batch.leaves[d20.proof.leaf].roll, roll.uuid);
  const used = batch.leaves.filter((l: { state: string }) => l.state === 'used').length;
  t.is(ledger.current.used, used, 'no gap: every leaf below the position was drawn by a value');
  t.true(batch.leaves.slice(0, used).every((l: { state: string }) => l.state === 'used'));
});

test('no client seed: the roll says null and the draws used the empty string; explosions, rerolls, mi/ma, fudge and d100 all verify', async (t) => {
  const { api } = await ctx.server.newUser();
  for (const equation of ['12d6!', '8d6rr1', '10d20ro<3', '6d6mi3', '6d6ma4', '4dF', '1d100', '5d10!!', '3d6!p', '10d8k3']) {
    const res = await api.post('/roll', { equation, theme: 'standard' });
    t.is(res.status, 201, res.text.slice(0, 200));
    const roll = res.body.data as AnyRoll;
    t.is(roll.fairness.client_seed, null);
    const drawn = roll.values.filter((v) => !v.is_user_value && v.type !== 'mod');
    const first = drawn[0].proof.batch * 256 + drawn[0].proof.leaf;
    drawn.forEach((v, i) => t.is(v.proof.batch * 256 + v.proof.leaf, first + i, `${equation}: value ${i} takes the next leaf`));
    const out = await verify(roll);
    t.is(out.code, 0, `${equation}: ${out.out}`);
  }
});

test("a roll outside rooms draws from its roller's own ledger, which only they read; a room's ledger is for its participants", async (t) => {
  const { roller, outsider, slug } = await table(ctx.server);
  const roll = (await rollOk(roller, { dice: [{ type: 'd8', theme: 'standard' }], client_seed: 'abc' })) as unknown as AnyRoll;
  const mine = (await roller.api.get('/user/fairness')).body.data;
  t.is(mine.ledger, roll.fairness.ledger);
  const theirs = (await outsider.api.get('/user/fairness')).body.data;
  t.not(theirs.ledger, mine.ledger, 'every user has a ledger of their own');
  const online = await verify(roll, roller);
  t.is(online.code, 0, online.out);
  t.is((await outsider.api.get(`/room/${slug}/fairness`)).status, 403);
  t.is((await outsider.api.get(`/room/nosuchroom/fairness`)).status, 404);
  t.is((await roller.api.get(`/room/${slug}/fairness/batch/99999`)).status, 404);
  t.is((await roller.api.get(`/room/${slug}/fairness/batch/x`)).status, 400);
  t.is((await roller.api.post('/roll', { dice: [{ type: 'd6', theme: 'standard' }], client_seed: 'x'.repeat(65) })).status, 400);
  const paged = (await roller.api.get(`/room/${slug}/fairness?limit=1`)).body.data;
  t.is(paged.batches.length, 1);
  t.truthy(paged.links.next);
});

test('hidden dice: the roller verifies them; others see no secret (and cannot) until they are revealed, over REST and sockets', async (t) => {
  const { roller, bystander, slug } = await table(ctx.server);
  const watcher = await connectWelcomed(ctx.server.url, slug, { token: bystander.key }, clients);
  const roll = (await rollOk(roller, {
    dice: [
      { type: 'd20', theme: 'standard', is_hidden: true },
      { type: 'd12', theme: 'standard' },
    ],
    room: slug,
    client_seed: seed(),
  })) as unknown as AnyRoll;
  t.regex(roll.values[0].proof.secret, /^[0-9a-f]{64}$/, 'the roller gets the secret of their hidden die');
  t.is((await verify(roll, roller)).code, 0);

  const seen = (await bystander.api.get(`/roll/${roll.uuid}`)).body.data as AnyRoll;
  t.is(seen.values[0].value, null);
  t.is(seen.values[0].proof.secret, null, 'no secret where there is no value');
  t.is(seen.values[0].proof.commitment, roll.values[0].proof.commitment, 'the commitment is public');
  t.regex(seen.values[1].proof.secret, /^[0-9a-f]{64}$/);
  const partial = await verify(seen, bystander);
  t.is(partial.code, 0, partial.out);
  t.regex(partial.out, /hidden from you \(no secret\)/);
  t.regex(partial.out, /1 value\(s\) verified to the face, 1 hidden from you/);

  const event = await watcher.waitFor('RollCreateEvent', (p) => p.data.uuid === roll.uuid);
  t.is(event.data.values[0].proof.secret, null, 'the socket event hides it alike');
  t.deepEqual(event.data.values[1].proof, seen.values[1].proof);
  const fromSocket = await verify(event, bystander);
  t.is(fromSocket.code, 0, fromSocket.out);

  const revealed = await roller.api.patch(`/roll/${roll.uuid}`, { dice: [{ uuid: roll.values[0].uuid, is_hidden: false }] });
  t.is(revealed.status, 200);
  const now = (await bystander.api.get(`/roll/${roll.uuid}`)).body.data as AnyRoll;
  t.is(now.values[0].proof.secret, roll.values[0].proof.secret, 'revealed: the secret with the value');
  const full = await verify(now, bystander);
  t.is(full.code, 0, full.out);
  t.regex(full.out, /2 value\(s\) verified to the face/);
  const update = await watcher.waitFor(
    'RollUpdateEvent',
    (p) => (p.data?.uuid ?? p.uuid) === roll.uuid && JSON.stringify(p).includes(roll.values[0].proof.secret),
  );
  t.truthy(update, 'the update event carries the secret once revealed');
});

test("dice added to a roll draw the ledger's next leaves under the roll's seed, and verify", async (t) => {
  const { roller, slug } = await table(ctx.server);
  const roll = (await rollOk(roller, { dice: [{ type: 'd20', theme: 'standard' }], room: slug, client_seed: 'added' })) as unknown as AnyRoll;
  const res = await roller.api.patch(`/roll/${roll.uuid}`, {
    dice: [
      { type: 'd6', theme: 'standard' },
      { type: 'd4', theme: 'standard' },
    ],
  });
  t.is(res.status, 200, res.text.slice(0, 200));
  const after = res.body.data as AnyRoll;
  t.is(after.values.length, 3);
  t.is(after.values[2].proof.faces, 4);
  const out = await verify(after, roller);
  t.is(out.code, 0, out.out);
});

test('tampering with any part is caught, and the verifier names the check that failed', async (t) => {
  const { roller, slug } = await table(ctx.server);
  const roll = (await rollOk(roller, {
    dice: Array.from({ length: 3 }, () => ({ type: 'd20', theme: 'standard' })),
    room: slug,
    client_seed: seed(),
  })) as unknown as AnyRoll;
  const other = (await rollOk(roller, { dice: [{ type: 'd20', theme: 'standard' }], room: slug, client_seed: seed() })) as unknown as AnyRoll;
  const otherFaceCount = (r: AnyRoll) => {
    const [secret, clientSeed] = [Buffer.from(r.values[0].proof.secret, 'hex'), r.fairness.client_seed ?? ''];
    let n = 19;
    while (drawFace(secret, clientSeed, n) === drawFace(secret, clientSeed, 20)) n--;
    return n;
  };
  const flip = (hex: string, at = 10) => hex.slice(0, at) + (parseInt(hex[at]!, 16) ^ 1).toString(16) + hex.slice(at + 1);
  const cases: [string, (r: AnyRoll) => void, RegExp][] = [
    ['value', (r) => (r.values[1].value = (r.values[1].value % 20) + 1), /FAIL .*value #1.*: face:/],
    ['secret', (r) => (r.values[1].proof.secret = flip(r.values[1].proof.secret)), /FAIL .*value #1.*: commitment:/],
    ['commitment', (r) => (r.values[1].proof.commitment = flip(r.values[1].proof.commitment)), /FAIL .*value #1.*: path:/],
    ['a path hash', (r) => (r.values[1].proof.path[3] = flip(r.values[1].proof.path[3])), /FAIL .*value #1.*: path:/],
    ['root', (r) => (r.values[1].proof.root = flip(r.values[1].proof.root)), /FAIL .*value #1.*: path:/],
    ['leaf', (r) => (r.values[2].proof.leaf += 1), /FAIL .*value #2.*: order:/],
    ['client seed', (r) => (r.fairness.client_seed = 'not the seed'), /: face:/],
    // A face count whose draw differs from the real one (19 draws the same face one time in about 20).
    ['faces', (r) => (r.values[0].proof.faces = otherFaceCount(r)), /FAIL .*value #0.*: face:/],
    [
      'a proof swapped in from another roll',
      (r) => (r.values[0] = { ...r.values[0], proof: other.values[0].proof, value: other.values[0].value }),
      /FAIL .*value #0.*: (order|ledger):/,
    ],
    ['a proof removed', (r) => (r.values[0].proof = null), /FAIL .*value #0.*: proof:/],
    ['a proof on a supplied value', (r) => (r.values[0].is_user_value = true), /FAIL .*value #0.*: proof:/],
  ];
  for (const [what, change, expected] of cases) {
    const copy = JSON.parse(JSON.stringify(roll)) as AnyRoll;
    change(copy);
    const out = await verify(copy, roller);
    t.is(out.code, 1, `${what}: ${out.out}`);
    t.regex(out.out, expected, what);
  }
  // A root and path made up consistently (a whole fake tree) still fail against the published root
  const forged = JSON.parse(JSON.stringify(roll)) as AnyRoll;
  const v = forged.values[0];
  const secret = Buffer.alloc(32, 7);
  const tree = new BatchTree(Buffer.concat(Array.from({ length: 256 }, () => secret)));
  Object.assign(v.proof, {
    secret: secret.toString('hex'),
    commitment: tree.commitment(v.proof.leaf).toString('hex'),
    path: tree.path(v.proof.leaf).map((h) => h.toString('hex')),
    root: tree.root.toString('hex'),
  });
  v.value = drawFace(secret, forged.fairness.client_seed ?? '', 20) + 1;
  const offline = await verify(forged);
  t.is(offline.code, 0, 'offline a consistent forgery cannot be told apart: that is what the publication is for');
  const online = await verify(forged, roller);
  t.is(online.code, 1);
  t.regex(online.out, /FAIL .*value #0.*: published:/);
  t.regex(online.out, /FAIL .*value #0.*: ledger:/);
});

test('the worked example of docs/fairness.md, recomputed', (t) => {
  const secrets = Buffer.concat(Array.from({ length: 256 }, (_, i) => createHash('sha256').update(`odice example leaf ${i}`).digest()));
  const tree = new BatchTree(secrets);
  const s = secrets.subarray(5 * 32, 6 * 32);
  const docs = fs.readFileSync(path.resolve('docs/fairness.md'), 'utf8');
  for (const hex of [s.toString('hex'), tree.commitment(5).toString('hex'), tree.path(5)[0]!.toString('hex'), tree.root.toString('hex')])
    t.true(docs.includes(hex), hex);
  const x = createHmac('sha256', s).update('c0ffee00c0ffee00c0ffee00c0ffee00:0').digest().readUInt32BE(0);
  t.is(x, 2_423_073_829);
  t.is(drawFace(s, 'c0ffee00c0ffee00c0ffee00c0ffee00', 20), 9);
  t.is(drawFace(s, 'c0ffee00c0ffee00c0ffee00c0ffee00', 6), 1);
});

test('a roll larger than the leaves published ahead waits for new batches, published before it is drawn, and verifies', async (t) => {
  const { roller, slug } = await table(ctx.server);
  // 100 d20s exploding on 7+: about 330 draws each, more than the one batch kept ahead
  for (let i = 0; i < 4; i++) {
    const res = await roller.api.post('/roll', { equation: '100d20!>6', theme: 'standard', room: slug, client_seed: seed() });
    t.is(res.status, 201, res.text.slice(0, 200));
    const out = await verify(res.body.data, roller);
    t.is(out.code, 0, out.out);
  }
  const ledger = (await roller.api.get(`/room/${slug}/fairness`)).body.data;
  t.true(ledger.next_draw > 512, `${ledger.next_draw} draws`);
  t.true(ledger.batches.length * 256 - ledger.next_draw >= 256, 'a whole batch is published ahead again');
});
