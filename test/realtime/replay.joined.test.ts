import test from 'ava';
import { parseEntry } from '../../src/realtime/transport/sequenceLog';
import { rollOk, table } from '../api/rolls.support';
import { useServer } from '../helpers/server';
import { Client, closeAll, connectWelcomed } from '../helpers/sockets';

/**
 * A since_seq replay names only what the socket's user could have seen: a table cleared before it joined
 * the room is not replayed to it (its RollDeleteEvent would name rolls from before it came), while a
 * participant who was in the room then still gets it. Pusher has no replay (docs/sdk.md).
 */
const ctx = useServer(test);
const clients: Client[] = [];
const connect = (slug: string, auth: Record<string, unknown>) => connectWelcomed(ctx.server.url, slug, auth, clients);
test.after.always(() => closeAll(...clients));

const seqOf = (c: Client) => Math.max(...c.events.map((e) => e.payload?.seq).filter((s): s is number => typeof s === 'number'));

test('a participant who joined after the table was cleared is not replayed the clearing; one who was there is', async (t) => {
  const s = await table(ctx.server);
  const watcher = await connect(s.slug, { token: s.bystander.key });
  const sinceSeq = seqOf(watcher);
  watcher.close();
  const before = await rollOk(s.roller, { dice: [{ type: 'd6' }], room: s.slug });
  const whispered = await rollOk(s.roller, { dice: [{ type: 'd6' }], room: s.slug, whisper: [s.participantId(s.roller)] });
  const cleared = await s.roller.api.delete(`/roll?room=${s.slug}`);
  t.is(cleared.status, 204, cleared.text);
  const after = await rollOk(s.roller, { dice: [{ type: 'd8' }], room: s.slug });

  // The outsider joins now, after the clearing, and reconnects "from" a seq before it.
  const joined = await s.outsider.api.post(`/room/${s.slug}/participant`, {});
  t.is(joined.status, 200, joined.text);
  const late = await connect(s.slug, { token: s.outsider.key, since_seq: sinceSeq });
  await late.waitFor('RollCreateEvent', (p) => p.data.uuid === after.uuid);
  const namedToLate = late.of('RollDeleteEvent').map((p) => p.data.uuid);
  t.deepEqual(namedToLate, [], 'the clearing names no roll to a participant who joined after it');
  t.false(late.of('RollCreateEvent').some((p) => p.data.uuid === before.uuid || p.data.uuid === whispered.uuid));

  // The bystander was in the room when the table was cleared: its replay brings the clearing.
  const present = await connect(s.slug, { token: s.bystander.key, since_seq: sinceSeq });
  await present.waitFor('RollCreateEvent', (p) => p.data.uuid === after.uuid);
  t.deepEqual(
    present.of('RollDeleteEvent').map((p) => p.data.uuid),
    [before.uuid],
  );
});

test('the log keeps when a table was cleared across Redis (parseEntry); an entry without that time is told to no one', (t) => {
  const entry = { event: 'RollDeleteEvent', rolls: [{ uuid: 'a', audience: null }], at: 1_790_000_000_000 };
  t.deepEqual(parseEntry(JSON.stringify(entry)), entry);
  t.deepEqual(parseEntry(JSON.stringify({ ...entry, at: 'soon' })), { event: 'RollDeleteEvent', rolls: [{ uuid: 'a', audience: null }] });
});
