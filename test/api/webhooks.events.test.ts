import test from 'ava';
import { Webhook } from 'standardwebhooks';
import { useServer } from '../helpers/server';
import { closeAll, connectWelcomed, type Client } from '../helpers/sockets';
import { WebhookReceiver, type Received } from '../helpers/webhookReceiver';
import { rollOk, type NewUser } from './rolls.support';

// Every event type, each recorded in its change's transaction, delivered signed, with the seq the
// room's sockets got for it (docs/webhooks.md, "Order and seq").
const ctx = useServer(test, { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_RETRY_SCHEDULE: '100ms', WEBHOOK_POLL_MS: '50' });
const receiver = new WebhookReceiver();
const clients: Client[] = [];
test.before(async () => {
  await receiver.start();
});
test.after.always(async () => {
  closeAll(...clients);
  await receiver.stop();
});

const d = (type: string, extra: Record<string, unknown> = {}) => ({ type, theme: 'standard', ...extra });

async function hook(user: NewUser, body: Record<string, unknown>) {
  const res = await user.api.post('/webhook', body);
  if (res.status !== 201) throw new Error(`webhook creation failed: ${res.status} ${res.text}`);
  return res.body.data as { id: string; secret: string };
}

/** The delivery, verified with the standardwebhooks package as a receiver would (throws when forged). */
function verified(secret: string, got: Received): { type: string; timestamp: string; data: any; seq: number | null } {
  return new Webhook(secret).verify(got.body, {
    'webhook-id': String(got.headers['webhook-id']),
    'webhook-timestamp': String(got.headers['webhook-timestamp']),
    'webhook-signature': String(got.headers['webhook-signature']),
  }) as never;
}

/** The socket event each webhook event type comes as to a room's sockets. */
const SOCKET_EVENT: Record<string, string> = {
  'roll.created': 'RollCreateEvent',
  'roll.updated': 'RollUpdateEvent',
  'roll.deleted': 'RollDeleteEvent',
  'room.updated': 'RoomUpdateEvent',
  'participant.joined': 'RoomUpdateEvent',
  'participant.updated': 'RoomUpdateEvent',
  'participant.left': 'RoomUpdateEvent',
  'room.deleted': 'RoomDeleteEvent',
};

test("every event type of a room is delivered signed, with the seq the owner's socket got for it, increasing", async (t) => {
  const owner = await ctx.server.newUser();
  const guest = await ctx.server.newUser();
  const slug = (await owner.api.post('/room', { name: 'Keep' })).body.data.slug as string;
  const path = '/all-events';
  const w = await hook(owner, { url: receiver.url + path, events: ['*'], room: slug });
  const socket = await connectWelcomed(ctx.server.url, slug, { token: owner.key }, clients);

  // One change at a time, each delivered before the next: a later room.deleted would skip what is still pending.
  const steps: Array<{ name: string; types: string[]; run: () => Promise<unknown> }> = [];
  let seatId = 0;
  let rollUuid = '';
  let dieUuid = '';
  steps.push({
    name: 'join',
    types: ['participant.joined', 'room.updated'],
    run: async () => {
      const res = await guest.api.post(`/room/${slug}/participant`);
      t.is(res.status, 200);
      seatId = res.body.data.participants.find((p: { user: { uuid: string } }) => p.user.uuid === guest.user.uuid).id;
    },
  });
  steps.push({
    name: 'rename',
    types: ['participant.updated', 'room.updated'],
    run: async () => t.is((await guest.api.patch(`/room/${slug}/participant/${seatId}`, { username: 'Vex' })).status, 200),
  });
  steps.push({
    name: 'roll',
    types: ['roll.created'],
    run: async () => {
      const roll = await rollOk(owner, { dice: [d('d20'), d('d6')], room: slug, label: 'Attack' });
      rollUuid = roll.uuid;
      dieUuid = roll.values[0]!.uuid;
    },
  });
  steps.push({
    name: 'hide a die',
    types: ['roll.updated'],
    run: async () => t.is((await owner.api.patch(`/roll/${rollUuid}`, { dice: [{ uuid: dieUuid, is_hidden: true }] })).status, 200),
  });
  steps.push({
    name: "clear one's dice off the table",
    types: ['roll.updated'],
    run: async () => t.is((await owner.api.patch(`/room/${slug}/roll`, { dice: { is_cleared: true } })).status, 200),
  });
  steps.push({
    name: 'rename the room',
    types: ['room.updated'],
    run: async () => t.is((await owner.api.patch(`/room/${slug}`, { name: 'Keep, second floor' })).status, 200),
  });
  steps.push({ name: 'clear the table', types: ['roll.deleted'], run: async () => t.is((await owner.api.delete(`/roll?room=${slug}`)).status, 204) });
  steps.push({
    name: 'leave',
    types: ['participant.left', 'room.updated'],
    run: async () => t.is((await guest.api.delete(`/room/${slug}/participant/${seatId}`)).status, 204),
  });
  steps.push({ name: 'delete the room', types: ['room.deleted'], run: async () => t.is((await owner.api.delete(`/room/${slug}`)).status, 204) });

  const seqsByStep: number[][] = [];
  for (const step of steps) {
    const before = receiver.at(path).length;
    await step.run();
    const got = (await receiver.waitFor(path, (r) => r.length >= before + step.types.length, step.name)).slice(before);
    const bodies = got.map((r) => verified(w.secret, r));
    t.deepEqual(bodies.map((b) => b.type).sort(), [...step.types].sort(), `${step.name}: its events, once each`);
    for (const body of bodies) {
      t.is(typeof body.seq, 'number', `${step.name}: ${body.type} carries the room's seq`);
      // The owner's socket got this event's socket counterpart under the same seq.
      const heard = await socket.waitFor(SOCKET_EVENT[body.type]!, (p) => p.seq === body.seq);
      if (body.type === 'roll.created' || body.type === 'roll.updated') t.deepEqual(body.data, heard.data, `${step.name}: the data the owner's socket got`);
      if (body.type === 'roll.deleted') t.deepEqual(body.data, heard.data);
    }
    // An arrival and its room.updated are one socket event: one seq.
    t.is(new Set(bodies.map((b) => b.seq)).size, 1, `${step.name}: its events share their block's seq`);
    seqsByStep.push(bodies.map((b) => b.seq!));
  }
  const firsts = seqsByStep.map((s) => s[0]!);
  t.deepEqual(
    [...firsts].sort((a, b) => a - b),
    firsts,
    'seq increases from one change to the next',
  );
  t.is(new Set(firsts).size, firsts.length);
});

test('events outside rooms: your own roll made nowhere, and its change, delivered signed with seq null', async (t) => {
  const roller = await ctx.server.newUser();
  const path = '/own-rolls';
  const w = await hook(roller, { url: receiver.url + path, events: ['roll.created', 'roll.updated'] });
  const roll = await rollOk(roller, { dice: [d('d8')] });
  const created = verified(w.secret, (await receiver.waitFor(path, (r) => r.length >= 1, 'roll.created'))[0]!);
  t.like(created, { type: 'roll.created', seq: null });
  t.deepEqual(created.data, (await roller.api.get(`/roll/${roll.uuid}`)).body.data);
  t.is((await roller.api.patch(`/roll/${roll.uuid}`, { dice: [{ uuid: roll.values[0]!.uuid, is_hidden: true }] })).status, 200);
  const updated = verified(w.secret, (await receiver.waitFor(path, (r) => r.length >= 2, 'roll.updated'))[1]!);
  t.like(updated, { type: 'roll.updated', seq: null });
  t.true(updated.data.values[0].is_hidden);
});

test('a refused change records nothing: a rename to a taken name (409) sends no participant.updated', async (t) => {
  const owner = await ctx.server.newUser();
  const guest = await ctx.server.newUser();
  const slug = (await owner.api.post('/room', { name: 'Names' })).body.data.slug as string;
  const path = '/refused';
  const w = await hook(owner, { url: receiver.url + path, events: ['participant.updated', 'participant.joined'], room: slug });
  const joined = await guest.api.post(`/room/${slug}/participant`);
  const ownerName = joined.body.data.participants.find((p: { user: { uuid: string } }) => p.user.uuid === owner.user.uuid).username as string;
  const seat = joined.body.data.participants.find((p: { user: { uuid: string } }) => p.user.uuid === guest.user.uuid).id as number;
  await receiver.waitFor(path, (r) => r.length >= 1, 'joined');
  t.is((await guest.api.patch(`/room/${slug}/participant/${seat}`, { username: ownerName })).status, 409);
  t.is((await guest.api.patch(`/room/${slug}/participant/${seat}`, { username: 'Second' })).status, 200);
  const got = await receiver.waitFor(path, (r) => r.length >= 2, 'updated');
  const updates = got.map((r) => verified(w.secret, r)).filter((b) => b.type === 'participant.updated');
  t.is(updates.length, 1, 'only the rename that committed');
  t.is(updates[0]!.data.username, 'Second');
});
