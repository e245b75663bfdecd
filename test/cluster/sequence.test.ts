import test from 'ava';
import { redisClient, useCluster, type TestUser } from '../helpers/cluster';
import { closeAll, connectWelcomed, type Client } from '../helpers/sockets';
import { createRequire } from 'node:module';

/** ioredis's own slot function (Redis Cluster's CRC16 of the hash tag). */
const calculateSlot = createRequire(import.meta.url)('cluster-key-slot') as (key: string) => number;

/**
 * Exact replay across two instances (PostgreSQL + the shared Redis): every room event is numbered by
 * the script that publishes it (src/realtime/transport/sequenceLogRedis.ts), so both instances deliver one order,
 * and a socket reconnecting with the highest seq it received gets exactly what it missed.
 * Redis restarts: test/cluster/sequence.outage.test.ts.
 */
const cluster = useCluster(test, 2);
const clients: Client[] = [];
test.after.always(() => closeAll(...clients));

const ROLL_EVENTS = new Set(['RollCreateEvent', 'RollUpdateEvent', 'RollDeleteEvent']);
const rollLine = (c: Client, after = -1) =>
  c.events.filter((e) => ROLL_EVENTS.has(e.event) && e.payload.seq > after).map((e) => `${e.event} ${e.payload.data.uuid} ${e.payload.seq}`);
const seqsOf = (c: Client) => c.events.map((e) => e.payload?.seq).filter((s): s is number => typeof s === 'number');
const creates = (c: Client) => c.of('RollCreateEvent').map((p) => p.data.uuid as string);

async function room(players: TestUser[]) {
  const owner = players[0]!;
  const created = await owner.api.post('/room', { name: 'Burst', is_public: true });
  const slug = created.body.data.slug as string;
  for (const p of players.slice(1)) {
    const joined = await p.api.post(`/room/${slug}/participant`, {});
    if (joined.status !== 200) throw new Error(`join failed: ${joined.status}`);
  }
  return slug;
}

async function rollVia(instance: number, who: TestUser, slug: string): Promise<string> {
  const res = await cluster.current.instances[instance]!.api.as(who.key).post('/roll', { dice: [{ type: 'd6', theme: 'standard' }], room: slug });
  if (res.status !== 201) throw new Error(`roll failed: ${res.status} ${res.text}`);
  return res.body.data.uuid as string;
}

test('a burst of concurrent rolls through two instances while a socket reconnects with since_seq: exactly the missed ones, in seq order, as sockets that stayed heard them; one order on both instances', async (t) => {
  const c = cluster.current;
  const [A, B] = [c.instances[0]!, c.instances[1]!];
  const players = await Promise.all([c.newUser(0), c.newUser(1), c.newUser(0), c.newUser(1)]);
  const watcher = players[3]!;
  const slug = await room(players);
  const connect = (url: string, auth: Record<string, unknown>) => connectWelcomed(url, slug, auth, clients);
  const stayA = await connect(A.url, { token: watcher.key });
  const stayB = await connect(B.url, { token: watcher.key });
  const leaver = await connect(B.url, { token: watcher.key });
  // An old client: only the uuid of the last roll it saw.
  const oldLeaver = await connect(A.url, { token: watcher.key });

  // Three players, each rolling one after the other through its own instance, all at once.
  const made: string[] = [];
  let stop = false;
  const loops = players.slice(0, 3).map(async (who, i) => {
    while (!stop && made.length < 150) made.push(await rollVia(i % 2, who, slug));
  });
  await leaver.until(() => creates(leaver).length >= 10, '10 rolls');
  const sinceSeq = Math.max(...seqsOf(leaver));
  leaver.close();
  const oldSince = creates(oldLeaver).at(-1)!;
  oldLeaver.close();
  await stayB.until(() => creates(stayB).length >= 40, '40 rolls');
  const atReconnect = Math.max(...seqsOf(stayB));
  const back = await connect(B.url, { token: watcher.key, since_seq: sinceSeq });
  const oldBack = await connect(A.url, { token: watcher.key, since: oldSince });
  await stayB.until(() => creates(stayB).length >= 70, '70 rolls');
  stop = true;
  await Promise.all(loops);
  const everyRoll = (x: Client) => x.until(() => made.every((u) => creates(x).includes(u)) || null, 'every roll', 30_000);
  await Promise.all([everyRoll(stayA), everyRoll(stayB)]);
  const lastSeq = Math.max(...seqsOf(stayB));
  await back.until(() => seqsOf(back).includes(lastSeq) || null, 'the last roll', 30_000);
  // `since` replays the rolls stored after it (the database's order, not the seqs'): read that order.
  const stored: string[] = [];
  for (let before = ''; ;) {
    const page = await players[0]!.api.get(`/room/${slug}/roll?limit=100${before ? `&before=${before}` : ''}`);
    const uuids = (page.body.data as Array<{ uuid: string }>).map((r) => r.uuid);
    stored.unshift(...uuids.reverse());
    if (uuids.length < 100) break;
    before = uuids[0]!;
  }
  const storedAfter = stored.slice(stored.indexOf(oldSince) + 1);
  await oldBack.until(() => storedAfter.every((u) => creates(oldBack).includes(u)) || null, 'every roll stored after the old since', 30_000);

  // One order, one numbering, on both instances; strictly increasing.
  t.deepEqual(rollLine(stayA), rollLine(stayB), 'both instances deliver the same events with the same seqs in the same order');
  const seqs = rollLine(stayB).map((line) => Number(line.split(' ')[2]));
  t.true(
    seqs.every((seq, i) => i === 0 || seq > seqs[i - 1]!),
    'seqs strictly increase',
  );
  t.is(creates(stayB).length, made.length, 'each roll once');

  // The reconnected socket: exactly what the others heard after its seq.
  t.is(back.events[0]!.event, 'RoomUpdateEvent');
  t.deepEqual(rollLine(back), rollLine(stayB, sinceSeq), 'exactly the missed ones and the live ones, in seq order, nothing twice, nothing missing');
  t.true(rollLine(back).length > 30, `it missed and got ${rollLine(back).length}`);

  // The old `since` still works: every roll after it, each once (its order is the database's).
  const heardOld = creates(oldBack);
  t.is(new Set(heardOld).size, heardOld.length, 'the old since: nothing twice');
  t.true(
    heardOld.every((u) => made.includes(u)),
    'the old since: rolls of this room',
  );
  t.true(
    storedAfter.every((u) => heardOld.includes(u)),
    'the old since: every roll stored after it',
  );
  t.log(
    `${made.length} rolls through two instances; the reconnected socket had missed at least ${rollLine(stayB, sinceSeq).filter((l) => Number(l.split(' ')[2]) <= atReconnect).length} and heard ${rollLine(back).length} in all`,
  );
});

test("the room's keys share the slot of its channel: {<prefix>#/room/<slug>#}:seq and :log, with a TTL; the log holds the roll events", async (t) => {
  const c = cluster.current;
  const players = await Promise.all([c.newUser(0), c.newUser(1)]);
  const slug = await room(players);
  const watcher = await connectWelcomed(c.instances[1]!.url, slug, { token: players[1]!.key }, clients);
  const uuid = await rollVia(0, players[0]!, slug);
  const heard = await watcher.waitFor('RollCreateEvent', (p) => p.data.uuid === uuid);
  const redis = redisClient();
  try {
    const tag = `{dice#/room/${slug}#}`;
    // The counter is at the roll's seq or past it: a join's RoomUpdateEvent may be numbered after the roll.
    t.true(Number(await redis.hget(`${tag}:seq`, 'n')) >= heard.seq);
    const log = await redis.zrange(`${tag}:log`, 0, -1, 'WITHSCORES');
    const at = log.findIndex((value, i) => i % 2 === 1 && Number(value) === heard.seq);
    t.true(at > 0, 'the roll is logged under its seq');
    t.regex(log[at - 1]!, /^\d+ \{"event":"RollCreateEvent","rollId":\d+\}$/);
    for (const key of ['seq', 'log']) t.true((await redis.ttl(`${tag}:${key}`)) > 3600, key);
    const senders = Object.keys(await redis.hgetall(`${tag}:seq`)).filter((f) => f.startsWith('i:'));
    t.true(senders.length >= 1 && senders.length <= 2, 'the instances that sent to it, with their last block numbers');
    // The hash tag is the channel itself: same slot as the (shard) channel `dice#/room/<slug>#`.
    for (const key of ['seq', 'log']) t.is(calculateSlot(`${tag}:${key}`), calculateSlot(`dice#/room/${slug}#`));
    // A counter that lost its last writes (a failover to a replica that had not got them): the next
    // seq is still above every seq handed out, since none is ever below the clock in microseconds.
    await redis.hset(`${tag}:seq`, 'n', '5');
    const next = await rollVia(1, players[1]!, slug);
    const after = await watcher.waitFor('RollCreateEvent', (p) => p.data.uuid === next);
    t.true(after.seq > heard.seq, `${heard.seq} then ${after.seq}`);
    // The counter and the log expire together: an event that logs nothing (a room update) keeps the log too.
    await redis.expire(`${tag}:log`, 100);
    t.is((await players[0]!.api.patch(`/room/${slug}`, { name: 'Renamed' })).status, 200);
    await watcher.waitFor('RoomUpdateEvent', (p) => p.data.name === 'Renamed');
    t.true((await redis.ttl(`${tag}:log`)) > 3600, "the log's TTL went with the counter's");
  } finally {
    redis.disconnect();
  }
});
