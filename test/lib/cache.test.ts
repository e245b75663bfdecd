import test from 'ava';
import { BoundedCache } from '../../src/lib/cache';
import { parseControl } from '../../src/realtime/transport/controlChannel';

/**
 * The bounded cache under the hot paths' caches (src/lib/cache.ts) and the control channel's
 * `invalidate` message (src/realtime/transport/controlChannel.ts). What the caches mean end to end is tested through
 * the API: test/api/caches.test.ts (one process), test/cluster/caches.test.ts (instances).
 */
const cache = <V>(maxWeight: number, ttlMs = 60_000, weigh?: (v: V) => number) => new BoundedCache<string, V>({ maxWeight, ttlMs: () => ttlMs, weigh });

test('bounded: the least recently used entries go first once the total weight passes the bound', (t) => {
  const c = cache<number>(3);
  for (const k of ['a', 'b', 'c']) c.set(k, 1, c.ticket());
  t.is(c.get('a'), 1, 'a used: b is now the least recently used');
  c.set('d', 1, c.ticket());
  t.deepEqual(
    ['a', 'b', 'c', 'd'].map((k) => c.get(k)),
    [1, undefined, 1, 1],
  );
  t.is(c.size, 3);

  const rooms = cache<{ participants: number }>(10, 60_000, (r) => 1 + r.participants);
  rooms.set('small', { participants: 2 }, rooms.ticket());
  rooms.set('big', { participants: 6 }, rooms.ticket());
  rooms.set('other', { participants: 2 }, rooms.ticket());
  t.is(rooms.get('small'), undefined, 'weights count: 3 + 7 + 3 is over 10, the oldest went');
  rooms.set('huge', { participants: 20 }, rooms.ticket());
  t.is(rooms.get('huge'), undefined, 'an entry heavier than the whole bound is not kept');
  t.truthy(rooms.get('big'));
});

test('second chance: every entry used since eviction last passed it stays over one unused, and the entry just set never goes', (t) => {
  const c = cache<number>(3);
  for (const k of ['a', 'b', 'c']) c.set(k, 1, c.ticket());
  for (const k of ['a', 'b', 'c']) c.get(k);
  c.set('d', 1, c.ticket());
  t.deepEqual(
    ['a', 'b', 'c', 'd'].map((k) => c.get(k)),
    [undefined, 1, 1, 1],
    'all three used: each passed over once, then the oldest of them went, never d',
  );
  // b, c and d were just read again, so all are marked: the next set passes over each once more.
  c.set('e', 1, c.ticket());
  t.is(c.size, 3);
  t.is(c.get('e'), 1);
  // One read buys one pass: x, read before z arrived, outlives y and then z.
  const unused = cache<number>(2);
  unused.set('x', 1, unused.ticket());
  unused.set('y', 1, unused.ticket());
  unused.get('x');
  unused.set('z', 1, unused.ticket());
  unused.set('w', 1, unused.ticket());
  t.deepEqual(
    ['x', 'y', 'z', 'w'].map((k) => unused.get(k)),
    [1, undefined, undefined, 1],
    'x was read before z came: passed over once, so y, then z (never read), went first',
  );
});

test('a fill that started before an invalidation is not kept; one after it is', (t) => {
  const c = cache<string>(10);
  const before = c.ticket();
  c.delete('key');
  c.set('key', 'read before the change', before);
  t.is(c.get('key'), undefined);
  const early = c.ticket();
  c.deleteWhere(() => false);
  c.set('key', 'stale', early);
  t.is(c.get('key'), undefined, 'any invalidation voids fills in flight, whatever it matched');
  c.set('key', 'fresh', c.ticket());
  t.is(c.get('key'), 'fresh');
  c.clear();
  t.is(c.get('key'), undefined);
});

test('entries expire after the TTL; a TTL of 0 keeps nothing', async (t) => {
  const c = cache<string>(10, 50);
  c.set('k', 'v', c.ticket());
  t.is(c.get('k'), 'v');
  await new Promise((r) => setTimeout(r, 80));
  t.is(c.get('k'), undefined);
  const off = cache<string>(10, 0);
  off.set('k', 'v', off.ticket());
  t.is(off.get('k'), undefined);
});

test("the control channel's invalidate message is parsed defensively", (t) => {
  t.deepEqual(parseControl(JSON.stringify({ type: 'invalidate', keys: [1, 2], rooms: [3], users: [], diceBoxes: [4], allDiceBoxes: true })), {
    type: 'invalidate',
    keys: [1, 2],
    rooms: [3],
    users: [],
    diceBoxes: [4],
    allDiceBoxes: true,
  });
  t.deepEqual(parseControl(JSON.stringify({ type: 'invalidate', all: true, extra: 'ignored' })), { type: 'invalidate', all: true });
  for (const bad of [{ keys: ['1'] }, { rooms: 3 }, { users: [1.5] }, { all: 'yes' }, { diceBoxes: Array(10_001).fill(1) }]) {
    t.is(parseControl(JSON.stringify({ type: 'invalidate', ...bad })), null, JSON.stringify(bad).slice(0, 40));
  }
  t.is(parseControl('{"type": "invalidate", "keys": [1]'), null, 'not JSON');
});

/** A read the test settles by hand, counting how many were started. */
function gate<V>() {
  const reads: Array<(v: V | null) => void> = [];
  const load = () => new Promise<V | null>((resolve) => reads.push(resolve));
  return { reads, load };
}

test('getOrLoad: concurrent misses of one key share one read; the value is kept; null is answered, not kept', async (t) => {
  const c = cache<string>(10);
  const g = gate<string>();
  const answers = Promise.all([c.getOrLoad('k', g.load), c.getOrLoad('k', g.load), c.getOrLoad('k', g.load)]);
  t.is(g.reads.length, 1, 'three misses at once: one read');
  g.reads[0]!('v1');
  t.deepEqual(await answers, ['v1', 'v1', 'v1']);
  t.is(await c.getOrLoad('k', g.load), 'v1', 'kept: no second read');
  t.is(g.reads.length, 1);

  const unknown = Promise.all([c.getOrLoad('none', g.load), c.getOrLoad('none', g.load)]);
  t.is(g.reads.length, 2, 'one read for both');
  g.reads[1]!(null);
  t.deepEqual(await unknown, [null, null]);
  const again = c.getOrLoad('none', g.load);
  t.is(g.reads.length, 3, 'null was not kept: the next miss reads again');
  g.reads[2]!(null);
  await again;
});

test('getOrLoad: a miss after an invalidation does not join a read begun before it, and that read is not kept', async (t) => {
  const c = cache<string>(10);
  const g = gate<string>();
  const before = c.getOrLoad('key', g.load);
  c.delete('key'); // a revocation pushed while the first read is in the database
  const after = c.getOrLoad('key', g.load);
  t.is(g.reads.length, 2, 'the miss after the invalidation reads afresh');
  g.reads[0]!('stale');
  g.reads[1]!(null);
  t.is(await before, 'stale', 'the request that began before the change gets what it read');
  t.is(await after, null, 'the one after it, what is true now');
  const third = c.getOrLoad('key', g.load);
  t.is(g.reads.length, 3, 'the stale read was not kept');
  g.reads[2]!(null);
  await third;
});

test('getOrLoad: a read that fails fails every request that shared it, and the next miss reads again', async (t) => {
  const c = cache<string>(10);
  let calls = 0;
  const failing = async () => {
    calls++;
    throw new Error('database unavailable');
  };
  const shared = [c.getOrLoad('k', failing), c.getOrLoad('k', failing)];
  for (const p of shared) await t.throwsAsync(p, { message: 'database unavailable' });
  t.is(calls, 1);
  t.is(await c.getOrLoad('k', async () => 'ok'), 'ok', 'nothing left in progress after the failure');
});
