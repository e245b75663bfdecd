import test from 'ava';
import { useServer } from '../helpers/server';
import { closeAll, connectWelcomed, type Client } from '../helpers/sockets';
import { closeAllPusher, connectPusher } from '../helpers/pusher';
import { rollOk, table } from './rolls.support';

// Whom a roll is whispered to, as the dddice Foundry module reads it: each `roll.participants[]` entry
// carries `participant: {id, username, color, user}` (dddice's pivot shape) beside the participant's
// own fields, on REST, Socket.IO and the Pusher gateway alike.
const ctx = useServer(test);
const sockets: Client[] = [];
test.after.always(() => {
  closeAll(...sockets);
  closeAllPusher();
});

const d = (type: string) => ({ type, theme: 'standard' });

test('every whisper recipient carries the pivot shape beside its own fields, on every channel', async (t) => {
  const s = await table(ctx.server);
  const socket = await connectWelcomed(ctx.server.url, s.slug, { token: s.whisperee.key }, sockets);
  const pusher = await connectPusher(ctx.server.url, { key: s.whisperee.key });
  await pusher.subscribe(`presence-room.${s.slug}`);

  // The Foundry module's body: the recipients by participant id.
  const roll = await rollOk(s.roller, { dice: [d('d20')], room: s.slug, whisper: [s.participantId(s.whisperee)] });
  const rest = (await s.whisperee.api.get(`/roll/${roll.uuid}`)).body.data;
  const viaSocket = (await socket.waitFor('RollCreateEvent', (p) => p.data.uuid === roll.uuid)).data;
  const viaPusher = (await pusher.waitFor('App\\Events\\RollCreateEvent', (m) => m.data.data.uuid === roll.uuid)).data.data;

  const seat = (await s.roller.api.get(`/room/${s.slug}`)).body.data.participants.find((p: { id: number }) => p.id === s.participantId(s.whisperee));
  for (const [channel, seen] of [
    ['POST /roll', roll],
    ['GET /roll', rest],
    ['Socket.IO', viaSocket],
    ['Pusher', viaPusher],
  ] as const) {
    const recipients = (seen as { participants: any[] }).participants;
    t.is(recipients.length, 1, channel);
    const [recipient] = recipients;
    // Today's readers: the participant's own fields.
    t.is(recipient.id, seat.id, channel);
    t.is(recipient.user.uuid, s.whisperee.user.uuid, channel);
    // The Foundry module's reader: `participant.user.uuid` and friends.
    t.deepEqual(recipient.participant, { id: seat.id, username: seat.username, color: seat.color, user: seat.user }, channel);
  }
  t.deepEqual(viaSocket.participants, rest.participants);
  t.deepEqual(viaPusher.participants, rest.participants);
  pusher.close();
});

test('a roll that is not whispered has no recipients', async (t) => {
  const s = await table(ctx.server);
  const roll = await rollOk(s.roller, { dice: [d('d6')], room: s.slug });
  t.deepEqual(roll.participants, []);
});
