import test from 'ava';
import { useCluster, type TestUser } from '../helpers/cluster';
import { closeAll, connectWelcomed, type Client } from '../helpers/sockets';

// Two instances as separate processes, one PostgreSQL database, one Redis.
const cluster = useCluster(test, 2);
const A = () => cluster.current.instances[0]!;
const B = () => cluster.current.instances[1]!;
const d = (type: string, extra: Record<string, unknown> = {}) => ({ type, theme: 'standard', ...extra });

const clients: Client[] = [];
const connect = (url: string, slug: string, auth: Record<string, unknown>) => connectWelcomed(url, slug, auth, clients);
test.after.always(() => closeAll(...clients));

async function roll(user: TestUser, url: string, body: Record<string, unknown>) {
  const res = await user.api.as(user.key).post(`${url}/api/1.0/roll`, body);
  if (res.status !== 201) throw new Error(`roll failed: ${res.status} ${res.text}`);
  return res.body.data as { uuid: string; values: Array<{ uuid: string; value: number | null }> };
}

/** A room of `n` players (the first made it); answers them with their participant ids. */
async function tableOf(n: number) {
  const players = await Promise.all(Array.from({ length: n }, (_, i) => cluster.current.newUser(i % 2)));
  const created = await players[0]!.api.post('/room', { name: 'Table' });
  const slug = created.body.data.slug as string;
  for (const p of players.slice(1)) {
    const joined = await p.api.post(`/room/${slug}/participant`, {});
    if (joined.status !== 200) throw new Error(`join failed: ${joined.text}`);
  }
  const room = (await players[0]!.api.get(`/room/${slug}`)).body.data;
  const participantId = (u: TestUser) => room.participants.find((p: any) => p.user.uuid === u.user.uuid).id as number;
  return { players, slug, participantId };
}

test('rolls posted on A reach clients on A and B once each, in order', async (t) => {
  const { players, slug } = await tableOf(2);
  const [p1, p2] = players as [TestUser, TestUser];
  const onA = await connect(A().url, slug, { token: p2.key });
  const onB = await connect(B().url, slug, { token: p2.key });
  const onB2 = await connect(B().url, slug, { token: p1.key });
  const posted: string[] = [];
  const sentAt = new Map<string, number>();
  for (let i = 0; i < 10; i++) {
    const start = Date.now();
    const uuid = (await roll(p1, A().url, { dice: [d('d6')], room: slug })).uuid;
    sentAt.set(uuid, start);
    posted.push(uuid);
  }
  // Rolls posted on different instances are not ordered against each other (docs/realtime.md): the
  // ten from A must all have arrived before the one from B is posted, which then tells that nothing
  // (no duplicate) was still on its way.
  for (const c of [onA, onB, onB2]) await c.waitFor('RollCreateEvent', (p) => p.data.uuid === posted[posted.length - 1]);
  posted.push((await roll(p1, B().url, { dice: [d('d4')], room: slug })).uuid);
  for (const c of [onA, onB, onB2]) {
    await c.waitFor('RollCreateEvent', (p) => p.data.uuid === posted[posted.length - 1]);
    t.deepEqual(
      c.of('RollCreateEvent').map((p) => p.data.uuid),
      posted,
    );
  }
  const latencies = onB.events
    .filter((e) => e.event === 'RollCreateEvent' && sentAt.has(e.payload.data.uuid))
    .map((e) => e.at - sentAt.get(e.payload.data.uuid)!);
  latencies.sort((x, y) => x - y);
  t.log(
    `POST /roll on A -> RollCreateEvent on B: median ${latencies[latencies.length >> 1]} ms, max ${latencies[latencies.length - 1]} ms (10 sequential rolls)`,
  );
});

test('whispers and hidden dice stay private across instances', async (t) => {
  const { players, slug, participantId } = await tableOf(3);
  const [roller, whisperee, bystander] = players as [TestUser, TestUser, TestUser];
  const sockets = {
    rollerB: await connect(B().url, slug, { token: roller.key }),
    whispereeA: await connect(A().url, slug, { token: whisperee.key }),
    whispereeB: await connect(B().url, slug, { token: whisperee.key }),
    bystanderA: await connect(A().url, slug, { token: bystander.key }),
    bystanderB: await connect(B().url, slug, { token: bystander.key }),
  };
  const secret = await roll(roller, A().url, { dice: [d('d20', { value: 20 })], room: slug, whisper: [participantId(whisperee)] });
  const hidden = await roll(roller, B().url, { dice: [d('d20', { value: 13, is_hidden: true }), d('d6', { value: 2 })], room: slug });
  const last = await roll(roller, A().url, { dice: [d('d4')], room: slug });
  // Rolls posted on different instances are not ordered against each other (docs/realtime.md): wait for
  // each one the socket must get, then compare as sets.
  for (const c of Object.values(sockets)) {
    for (const r of [hidden, last]) await c.waitFor('RollCreateEvent', (p) => p.data.uuid === r.uuid);
  }
  // Each roll by its uuid, not by its place: `last` (through A) may arrive before `hidden` (through B).
  const seen = (c: Client, uuid: string) => c.of('RollCreateEvent').find((p) => p.data.uuid === uuid).data;
  for (const c of [sockets.bystanderA, sockets.bystanderB]) {
    t.deepEqual(
      c
        .of('RollCreateEvent')
        .map((p) => p.data.uuid)
        .sort(),
      [hidden.uuid, last.uuid].sort(),
    );
    t.false(JSON.stringify(c.events).includes(secret.uuid));
    t.is(seen(c, hidden.uuid).values[0].value, null);
    t.is(seen(c, hidden.uuid).total_value, 2);
  }
  for (const c of [sockets.whispereeA, sockets.whispereeB]) {
    await c.waitFor('RollCreateEvent', (p) => p.data.uuid === secret.uuid);
    t.deepEqual(
      c
        .of('RollCreateEvent')
        .map((p) => p.data.uuid)
        .sort(),
      [secret.uuid, hidden.uuid, last.uuid].sort(),
    );
    t.is(seen(c, hidden.uuid).values[0].value, null);
  }
  t.is(seen(sockets.rollerB, hidden.uuid).values[0].value, 13);
  t.deepEqual(seen(sockets.rollerB, hidden.uuid), (await roller.api.get(`/roll/${hidden.uuid}`)).body.data);
});

test('a client that reconnects to the other instance with since gets exactly the rolls it missed', async (t) => {
  const { players, slug } = await tableOf(2);
  const [p1, p2] = players as [TestUser, TestUser];
  const first = await connect(A().url, slug, { token: p2.key });
  const seen = await roll(p1, A().url, { dice: [d('d6')], room: slug });
  await first.waitFor('RollCreateEvent', (p) => p.data.uuid === seen.uuid);
  first.close();
  const missed: string[] = [];
  for (let i = 0; i < 5; i++) missed.push((await roll(p1, i % 2 ? A().url : B().url, { dice: [d('d8')], room: slug })).uuid);
  const again = await connect(B().url, slug, { token: p2.key, since: seen.uuid });
  await again.waitForCount('RollCreateEvent', missed.length);
  const live = await roll(p1, A().url, { dice: [d('d4')], room: slug });
  await again.waitFor('RollCreateEvent', (p) => p.data.uuid === live.uuid);
  t.deepEqual(
    again.of('RollCreateEvent').map((p) => p.data.uuid),
    [...missed, live.uuid],
  );
});

test('a burst of 500 rolls from 10 users arrives complete, once, and in one order at every client', async (t) => {
  const USERS = 10;
  const PER_USER = 50;
  const { players, slug } = await tableOf(USERS);
  // Each player watches from the instance it rolls on, plus one more socket on the other.
  const watchers = await Promise.all(players.flatMap((p, i) => [connect(cluster.current.instances[i % 2]!.url, slug, { token: p.key })]));
  watchers.push(await connect(B().url, slug, { token: players[0]!.key }), await connect(A().url, slug, { token: players[1]!.key }));
  const started = Date.now();
  const byUser = await Promise.all(
    players.map(async (p, i) => {
      const url = cluster.current.instances[i % 2]!.url;
      const mine: string[] = [];
      for (let k = 0; k < PER_USER; k++) mine.push((await roll(p, url, { dice: [d('d20'), d('d6')], room: slug })).uuid);
      return mine;
    }),
  );
  const posted = Date.now() - started;
  const all = new Set(byUser.flat());
  t.is(all.size, USERS * PER_USER);
  const orders = await Promise.all(
    watchers.map(async (c) => {
      const got = await c.waitForCount('RollCreateEvent', USERS * PER_USER, 60_000);
      return got.map((p) => p.data.uuid as string);
    }),
  );
  const delivered = Date.now() - started;
  for (const order of orders) {
    t.is(order.length, USERS * PER_USER, 'nothing twice');
    t.is(new Set(order).size, USERS * PER_USER);
    t.true(order.every((u) => all.has(u)));
    t.deepEqual(order, orders[0], 'every client sees the room in the same order');
    for (const mine of byUser) {
      t.deepEqual(
        order.filter((u) => mine.includes(u)),
        mine,
        "each player's rolls in the order they were made",
      );
    }
  }
  t.log(
    `500 rolls posted in ${posted} ms (${Math.round(500000 / posted)}/s) by 10 players over 2 instances; all delivered to ${watchers.length} sockets after ${delivered} ms`,
  );
});
