import test from 'ava';
import { useServer } from '../helpers/server';
import { Client, closeAll, connectWelcomed, refusal } from '../helpers/sockets';
import { connectRoom as liveRoom, lastSeq } from '../../src/client/realtime';
import { rollOk, table, type Roll } from '../api/rolls.support';
import { freshCounter, MemorySequence } from '../../src/realtime/transport/sequenceLog';

/**
 * Exact replay in one process (no Redis): seqs from the process's counters, replay from its log
 * (src/realtime/transport/sequenceLog.ts MemorySequence). The two-instance shape: test/cluster/sequence.test.ts.
 */
const ctx = useServer(test);
const d = (type: string, extra: Record<string, unknown> = {}) => ({ type, theme: 'standard', ...extra });

const clients: Client[] = [];
const connect = (slug: string, auth: Record<string, unknown>) => connectWelcomed(ctx.server.url, slug, auth, clients);
test.after.always(() => closeAll(...clients));

const ROLL_EVENTS = new Set(['RollCreateEvent', 'RollUpdateEvent', 'RollDeleteEvent']);
/** What a client heard of rolls: event, roll uuid and seq, in arrival order. */
const rollLine = (c: Client, after = -1) =>
  c.events.filter((e) => ROLL_EVENTS.has(e.event) && e.payload.seq > after).map((e) => `${e.event} ${e.payload.data.uuid} ${e.payload.seq}`);
const seqsOf = (c: Client) => c.events.map((e) => e.payload?.seq).filter((s): s is number => typeof s === 'number');
const highestSeq = (c: Client) => Math.max(...seqsOf(c));

test('since_seq that is not a non-negative integer is a validation_error; digits in a string are taken', async (t) => {
  const s = await table(ctx.server);
  for (const bad of ['abc', -1, 1.5, '12x', {}, [3], true, '99999999999999999']) {
    const refused = await refusal(ctx.server.url, `/room/${s.slug}`, { token: s.bystander.key, since_seq: bad });
    t.is(refused.code, 'validation_error', JSON.stringify(bad));
    t.regex(refused.data.message, /since_seq/);
  }
  const ok = await connect(s.slug, { token: s.bystander.key, since_seq: '0' });
  t.true(ok.socket.connected);
});

test("every room event carries a seq, strictly increasing per room; the welcome carries the room's, moves none", async (t) => {
  const s = await table(ctx.server);
  const first = await connect(s.slug, { token: s.roller.key });
  const welcomeSeq = first.of('RoomUpdateEvent')[0].seq;
  t.true(Number.isSafeInteger(welcomeSeq) && welcomeSeq > 1e15, 'a counter starts from the clock in microseconds');
  const other = await connect(s.slug, { token: s.bystander.key });
  const made: Roll[] = [];
  for (let i = 0; i < 3; i++) made.push(await rollOk(s.roller, { dice: [d('d6')], room: s.slug }));
  await s.roller.api.patch(`/room/${s.slug}`, { name: 'Renamed' });
  await first.waitFor('RoomUpdateEvent', (p) => p.data.name === 'Renamed');
  await other.waitFor('RoomUpdateEvent', (p) => p.data.name === 'Renamed');
  for (const c of [first, other]) {
    const seqs = seqsOf(c);
    t.true(
      seqs.every((seq, i) => i === 0 || seq > seqs[i - 1]!),
      `strictly increasing: ${seqs.join(' ')}`,
    );
  }
  // Both heard the rolls with the same seqs.
  t.deepEqual(rollLine(first), rollLine(other));
  t.true(first.of('ParticipantConnectEvent').every((p) => typeof p.seq === 'number'));
});

test('a socket reconnecting with since_seq gets exactly the roll events it missed, in seq order, as it may see them; the same as a socket that stayed', async (t) => {
  const s = await table(ctx.server);
  const stayer = await connect(s.slug, { token: s.bystander.key });
  const leaver = await connect(s.slug, { token: s.bystander.key });
  const before = await rollOk(s.roller, { dice: [d('d6')], room: s.slug });
  await leaver.waitFor('RollCreateEvent', (p) => p.data.uuid === before.uuid);
  const sinceSeq = highestSeq(leaver);
  leaver.close();
  const hidden = await rollOk(s.roller, { dice: [d('d20', { value: 17, is_hidden: true })], room: s.slug });
  const plain = await rollOk(s.roller, { dice: [d('d8')], room: s.slug });
  const patched = await s.roller.api.patch(`/roll/${plain.uuid}`, {
    dice: [{ uuid: plain.values[0]!.uuid, meta: { position: { x: 1, z: 2 } } }],
    room: s.slug,
  });
  t.is(patched.status, 200, patched.text);
  const cleared = await s.roller.api.delete(`/roll?room=${s.slug}`);
  t.true(cleared.status === 200 || cleared.status === 204);
  const whisper = await rollOk(s.roller, { dice: [d('d20')], room: s.slug, whisper: [s.participantId(s.whisperee)] });
  const after = await rollOk(s.roller, { dice: [d('d4', { value: 3, is_hidden: true })], room: s.slug });
  await stayer.waitFor('RollCreateEvent', (p) => p.data.uuid === after.uuid);

  const back = await connect(s.slug, { token: s.bystander.key, since_seq: sinceSeq, since: before.uuid });
  const live = await rollOk(s.roller, { dice: [d('d4')], room: s.slug });
  await back.waitFor('RollCreateEvent', (p) => p.data.uuid === live.uuid);
  await stayer.waitFor('RollCreateEvent', (p) => p.data.uuid === live.uuid);

  t.is(back.events[0]!.event, 'RoomUpdateEvent');
  t.is(back.events[0]!.payload.seq, sinceSeq, "the welcome says the stream goes on from the client's seq");
  // Rolls deleted since are not created again (their RollDeleteEvent is), so compare what survives.
  const heard = rollLine(back);
  t.is(new Set(heard).size, heard.length, 'nothing twice');
  const seqs = heard.map((line) => Number(line.split(' ')[2]));
  // One block, one seq: the RollDeleteEvents of a cleared table share theirs.
  t.true(
    seqs.every((seq, i) => i === 0 || seq > seqs[i - 1]! || (seq === seqs[i - 1] && heard[i]!.startsWith('RollDeleteEvent'))),
    'in seq order',
  );
  const deletedUuids = new Set(stayer.of('RollDeleteEvent').map((p) => p.data.uuid));
  const expected = rollLine(stayer, sinceSeq).filter((line) => {
    const [event, uuid] = line.split(' ');
    return event === 'RollDeleteEvent' || !deletedUuids.has(uuid!);
  });
  t.deepEqual(heard, expected, 'exactly what the socket that stayed heard after since_seq');
  t.false(
    heard.some((line) => line.includes(whisper.uuid)),
    'a whisper to someone else is not replayed, nor its delete',
  );
  t.true(heard.includes(`RollCreateEvent ${after.uuid} ${stayer.of('RollCreateEvent').find((p) => p.data.uuid === after.uuid).seq}`));
  t.false(
    heard.some((line) => line.includes(hidden.uuid) && line.startsWith('RollCreateEvent')),
    'deleted since: only its delete',
  );
  const replayedAfter = back.of('RollCreateEvent').find((p) => p.data.uuid === after.uuid).data;
  t.deepEqual(replayedAfter, (await s.bystander.api.get(`/roll/${after.uuid}`)).body.data, 'presented for this viewer, as REST');
  t.is(replayedAfter.values[0].value, null, 'a hidden die stays hidden');
});

test('a burst of rolls while a socket reconnects with since_seq: every roll once, in seq order, as the socket that stayed heard them', async (t) => {
  const s = await table(ctx.server);
  const stayer = await connect(s.slug, { token: s.bystander.key });
  const leaver = await connect(s.slug, { token: s.bystander.key });
  const made: Roll[] = [];
  let stop = false;
  const players = [s.roller, s.whisperee].map(async (who) => {
    while (!stop && made.length < 60) made.push(await rollOk(who, { dice: [d('d6')], room: s.slug }));
  });
  await leaver.until(() => leaver.of('RollCreateEvent').length >= 5, '5 rolls');
  const sinceSeq = highestSeq(leaver);
  leaver.close();
  await stayer.until(() => stayer.of('RollCreateEvent').length >= 15, '15 rolls');
  const back = await connect(s.slug, { token: s.bystander.key, since_seq: sinceSeq });
  await stayer.until(() => stayer.of('RollCreateEvent').length >= 30, '30 rolls');
  stop = true;
  await Promise.all(players);
  const last = stayer.of('RollCreateEvent').at(-1)!.seq as number;
  await stayer.until(() => stayer.of('RollCreateEvent').length === made.length, 'every roll');
  await back.until(() => back.of('RollCreateEvent').some((p) => p.seq === Math.max(last, ...stayer.of('RollCreateEvent').map((q) => q.seq))), 'the last roll');
  t.deepEqual(rollLine(back), rollLine(stayer, sinceSeq));
});

test('the typed client sends the highest seq it received on reconnecting (since_seq): the replay goes on from it, each roll once', async (t) => {
  const s = await table(ctx.server);
  const socket = liveRoom(ctx.server.url, s.bystander.key, s.slug, {
    socket: { transports: ['websocket'], forceNew: true, reconnectionDelay: 300, randomizationFactor: 0 },
  });
  const client = new Client(socket as unknown as Client['socket']);
  clients.push(client);
  await client.waitFor('RoomUpdateEvent');
  const first = await rollOk(s.roller, { dice: [d('d6')], room: s.slug });
  await client.waitFor('RollCreateEvent', (p) => p.data.uuid === first.uuid);
  const before = lastSeq(socket);
  t.is(before, highestSeq(client), 'lastSeq() is the highest seq received');
  // The welcomes so far (a loaded machine can add a reconnection before this point: CI once saw the
  // welcome of such an earlier one, with the seq from before the first roll, taken for the one below).
  const welcomes = client.of('RoomUpdateEvent').length;
  // The transport drops (as a network failure would): socket.io-client reconnects by itself.
  socket.io.engine.close();
  const missed = [await rollOk(s.roller, { dice: [d('d6')], room: s.slug }), await rollOk(s.roller, { dice: [d('d6')], room: s.slug })];
  await client.until(() => client.of('RoomUpdateEvent').length > welcomes || null, 'the welcome of the reconnection');
  t.is(client.of('RoomUpdateEvent')[welcomes].seq, before, 'it sent since_seq, and the log covered it');
  await client.until(() => missed.every((r) => client.of('RollCreateEvent').some((p) => p.data.uuid === r.uuid)) || null, 'the missed rolls');
  const heard = client.of('RollCreateEvent').map((p) => p.data.uuid);
  t.deepEqual(heard, [first.uuid, ...missed.map((r) => r.uuid)], 'each once, in order');
  t.is(lastSeq(socket), highestSeq(client));
});

test('a since_seq the log does not cover falls back to since (the uuid); without since nothing is replayed', async (t) => {
  const s = await table(ctx.server);
  const watcher = await connect(s.slug, { token: s.bystander.key });
  const first = await rollOk(s.roller, { dice: [d('d6')], room: s.slug });
  const missed = await rollOk(s.roller, { dice: [d('d6')], room: s.slug });
  await watcher.waitFor('RollCreateEvent', (p) => p.data.uuid === missed.uuid);
  // A seq from before the counter started (as after a restart that lost the log).
  const withUuid = await connect(s.slug, { token: s.bystander.key, since_seq: 5, since: first.uuid });
  const bare = await connect(s.slug, { token: s.bystander.key, since_seq: 5 });
  const live = await rollOk(s.roller, { dice: [d('d4')], room: s.slug });
  for (const c of [withUuid, bare]) await c.waitFor('RollCreateEvent', (p) => p.data.uuid === live.uuid);
  t.deepEqual(
    withUuid.of('RollCreateEvent').map((p) => p.data.uuid),
    [missed.uuid, live.uuid],
  );
  t.deepEqual(
    bare.of('RollCreateEvent').map((p) => p.data.uuid),
    [live.uuid],
  );
  const missedSeq = watcher.of('RollCreateEvent').find((p) => p.data.uuid === missed.uuid).seq;
  const liveSeq = watcher.of('RollCreateEvent').find((p) => p.data.uuid === live.uuid).seq;
  const welcomeSeq = withUuid.of('RoomUpdateEvent')[0].seq;
  t.true(welcomeSeq >= missedSeq && welcomeSeq < liveSeq, "not covered: the welcome gives the room's seq");
});

test('the in-process log: trimmed to its limit, a seq below what it holds is not covered, a new counter starts above the old ones', async (t) => {
  const log = new MemorySequence(3);
  const start = await log.head('/room/a');
  const seqs = [1, 2, 3, 4, 5].map((rollId) => log.next('/room/a', { event: 'RollCreateEvent', rollId }));
  t.true(
    seqs.every((seq, i) => seq > (i ? seqs[i - 1]! : start)),
    'strictly increasing',
  );
  t.true(seqs.at(-1)! >= Date.now() * 1000 - 10_000_000, 'never below the clock in microseconds (when taken)');
  t.deepEqual(
    (await log.read('/room/a', seqs[1]!, seqs[4]!))!.map((e) => e.seq),
    seqs.slice(2),
    'the last 3',
  );
  t.is(await log.read('/room/a', seqs[0]!, seqs[4]!), null, 'trimmed: not covered');
  t.is(await log.read('/room/a', seqs[4]! + 1, seqs[4]!), null, 'a seq from the future: not covered');
  t.deepEqual(await log.read('/room/a', seqs[4]!, seqs[4]!), []);
  // A restart takes longer than the millisecond the five seqs above may all have been taken in.
  while (freshCounter() <= seqs.at(-1)!) await new Promise((resolve) => setTimeout(resolve, 1));
  const restarted = new MemorySequence();
  t.true((await restarted.head('/room/a')) >= seqs.at(-1)!, 'a fresh counter (a restart) starts at the clock, not below the seqs handed out');
  t.true(restarted.next('/room/a') > seqs.at(-1)!);
});
