import test from 'ava';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { IRoll, IRollValue, IRoom, IRoomParticipant, ThreeDDiceAPI } from 'dddice-js';
import { useServer, type TestServer } from '../helpers/server';
import { waitUntil } from '../helpers/waiting';

// The stock dddice SDK (dddice-js 0.19.34-974, its Node build, unchanged but for its host strings)
// against this server: what an existing integration sees once pointed here (docs/sdk.md, and
// docs/realtime.md, "The Pusher gateway"). pusher.test.ts speaks the wire with pusher-js; this
// file goes through the SDK's own calls only: connect, onConnect, onParticipant*, listen, sendLocal,
// listenLocal, roll.create/update, room.update, disconnect.
//
// No browser global is needed: the Node build bundles its own websocket client (faye) and axios, and
// ThreeDDiceAPI takes its non-browser branch (`typeof window` undefined) by itself.
//
// The server listens on '::' (both stacks): the SDK must be given the host name "localhost", the only
// one for which it speaks plain ws, and Node 20 may resolve that name to ::1 or to 127.0.0.1.
const ctx = useServer(test, { HOST: '::' });

type Sdk = typeof import('dddice-js');
type User = Awaited<ReturnType<TestServer['newUser']>>;

const BUNDLE = path.join(path.dirname(createRequire(import.meta.url).resolve('dddice-js')), 'dddice-latest.node.mjs');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dddice-sdk-'));
let patched: string | null = null;

/**
 * A copy of the bundle pointed at the test server, the way docs/sdk.md tells operators to: APP_URL (REST
 * and /broadcasting/auth) to the server's URL, WEBSOCKETS_URI to "localhost" (plain ws) and both
 * `wsPort:6001` to the server's port. Each string must be found as often as expected, or the bundle
 * is not the one this test was written against and the test says so.
 */
function patchedBundle(server: TestServer): string {
  if (patched) return patched;
  let source = fs.readFileSync(BUNDLE, 'utf8');
  const rewrites: Array<[from: string, to: string, times: number]> = [
    ['APP_URL:"https://dddice.com"', `APP_URL:${JSON.stringify(server.url)}`, 1],
    ['WEBSOCKETS_URI:"ws.dddice.com"', 'WEBSOCKETS_URI:"localhost"', 1],
    ['wsPort:6001', `wsPort:${server.port}`, 2],
  ];
  for (const [from, to, times] of rewrites) {
    const found = source.split(from).length - 1;
    if (found !== times) throw new Error(`${BUNDLE}: "${from}" found ${found} times, expected ${times} (not dddice-js 0.19.34-974?)`);
    source = source.replaceAll(from, to);
  }
  patched = path.join(tmp, 'dddice-latest.node.mjs');
  fs.writeFileSync(patched, source);
  return patched;
}

/** Every SDK still connected: closed at the end so that pusher-js does not keep the process alive. */
const open = new Set<SdkUser>();
test.after.always(() => {
  for (const user of open) user.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

let instances = 0;

/**
 * One user of the stock SDK, in a module instance of its own: the bundle keeps the API key in its
 * axios defaults, module-wide, so two ThreeDDiceAPIs of one module would both send the last key.
 * Records what each SDK callback hands the integration, in order.
 */
class SdkUser {
  readonly connects: IRoomParticipant[][] = [];
  readonly joined: IRoomParticipant[] = [];
  readonly left: IRoomParticipant[] = [];
  readonly created: IRoll[] = [];
  readonly updated: IRoll[] = [];
  readonly rooms: IRoom[] = [];
  readonly moves: any[] = [];
  /** Every frame pusher-js received, for the message of a wait that times out. */
  readonly wire: string[] = [];
  readonly subscriptionErrors: unknown[] = [];
  private readonly wakers = new Set<() => void>();

  private constructor(
    readonly sdk: Sdk,
    readonly api: ThreeDDiceAPI,
    readonly user: User,
    readonly slug: string,
  ) {}

  static async connect(server: TestServer, user: User, slug: string): Promise<SdkUser> {
    const sdk = (await import(`${pathToFileURL(patchedBundle(server)).href}?user=${++instances}`)) as Sdk;
    const api = new sdk.ThreeDDiceAPI(user.key, 'open-dddice tests');
    const me = new SdkUser(sdk, api, user, slug);
    open.add(me);
    const record =
      <T>(into: T[]) =>
      (item: T) => {
        into.push(item);
        me.wake();
      };
    api.connect(slug, undefined, user.user.uuid);
    api.onConnect(record(me.connects)).onParticipantConnect(record(me.joined)).onParticipantDisconnect(record(me.left));
    api.listen(sdk.ThreeDDiceRollEvent.RollCreated, record(me.created));
    api.listen(sdk.ThreeDDiceRollEvent.RollUpdated, record(me.updated));
    api.listen(sdk.ThreeDDiceRoomEvent.RoomUpdated, record(me.rooms));
    api.listenLocal('RollValueMoveEvent', record(me.moves));
    me.pusher.connection.bind('message', (m: { event: string; channel?: string }) => {
      me.wire.push(`${m.event}@${m.channel ?? ''}`);
      me.wake();
    });
    // A refused authorisation is not retried by pusher-js: keep its answer, to say why in a timeout.
    me.pusher.bind_global((event: string, data: unknown) => {
      if (event === 'pusher:subscription_error') me.subscriptionErrors.push(data);
    });
    // Presence (onConnect) and, since a user uuid was given, the two private channels the SDK also
    // binds every listen() on: a copy sent on those too would be a duplicate, so wait for all three.
    // Three authorisations and subscriptions: under the full suite's load on two cores this has been
    // seen to take longer than the 10 s other waits are given.
    await me.until(
      () => me.connects.length > 0 && me.channels.every((name) => me.pusher.channel(name)?.subscribed),
      'the SDK connected and subscribed',
      30_000,
    );
    return me;
  }

  /** Echo's pusher-js client (api.connection is the SDK's Echo, untyped in its .d.ts). */
  get pusher(): any {
    return (this.api as any).connection.connector.pusher;
  }

  get channels(): string[] {
    return [`presence-room.${this.slug}`, `private-room.${this.slug}.${this.user.user.uuid}`, `private-user.${this.user.user.uuid}`];
  }

  private wake() {
    for (const wake of [...this.wakers]) wake();
  }

  until<T>(check: () => T | undefined | null | false, what: string, timeoutMs?: number): Promise<T> {
    return waitUntil(
      (wake) => {
        this.wakers.add(wake);
        return () => this.wakers.delete(wake);
      },
      check,
      `${this.user.user.username}: ${what}`,
      () =>
        `state ${this.pusher.connection.state}; received: ${this.wire.join(', ') || 'nothing'}; subscription errors: ${JSON.stringify(this.subscriptionErrors)}`,
      timeoutMs,
    );
  }

  close() {
    open.delete(this);
    (this.api as any).connection?.disconnect();
  }
}

/** A room of `owner` with `guest` seated, as GET /room/{slug} shows it to `viewer`. */
async function table(server: TestServer) {
  const [owner, guest] = await Promise.all([server.newUser(), server.newUser()]);
  const slug = (await owner.api.post('/room', {})).body.data.slug as string;
  if ((await guest.api.post(`/room/${slug}/participant`)).status !== 200) throw new Error('join failed');
  const participant = async (viewer: User, of: User) =>
    ((await viewer.api.get(`/room/${slug}`)).body.data.participants as IRoomParticipant[]).find((p) => p.user.uuid === of.user.uuid)!;
  return { owner, guest, slug, participant };
}

// The SDK's types say a die's value is a number; a value hidden from the viewer is null on the wire.
const byId = (list: IRoomParticipant[]) => [...list].sort((a, b) => a.id - b.id);

test('two SDK users in a room: onConnect lists both participants as GET /room shows them; the other hears the join and the leave once', async (t) => {
  const { owner, guest, slug, participant } = await table(ctx.server);
  const a = await SdkUser.connect(ctx.server, owner, slug);
  t.deepEqual(a.connects, [[await participant(owner, owner)]], 'alone in the room');

  const b = await SdkUser.connect(ctx.server, guest, slug);
  const room = (await guest.api.get(`/room/${slug}`)).body.data;
  t.is(room.participants.length, 2);
  t.deepEqual(byId(b.connects[0]!), byId(room.participants), "onConnect hands every member's participant object as GET /room shows it");
  t.is(b.connects.length, 1);
  const joined = await a.until(() => a.joined[0], 'onParticipantConnect');
  t.deepEqual(joined, await participant(owner, guest));
  t.is(b.joined.length, 0, 'nobody is told of their own arrival');

  b.api.disconnect();
  const left = await a.until(() => a.left[0], 'onParticipantDisconnect');
  t.deepEqual(left, await participant(owner, guest));
  t.is(b.pusher.connection.state, 'connected', "the SDK's disconnect() leaves the room's channels, not the websocket");
  b.close();
  // Coming back (a page reload) is a join again; closing the socket without disconnect() a leave.
  const again = await SdkUser.connect(ctx.server, guest, slug);
  await a.until(() => a.joined.length === 2, 'the second onParticipantConnect');
  t.deepEqual(a.joined[1], await participant(owner, guest));
  again.close();
  await a.until(() => a.left.length === 2, 'onParticipantDisconnect when the socket closes');
  t.deepEqual(a.left[1], await participant(owner, guest));
  a.close();
});

test("a roll made with the SDK's roll.create is heard once by the other user as GET /roll shows it to them; a hidden die's value is null for them; the update too", async (t) => {
  const { owner, guest, slug } = await table(ctx.server);
  const [a, b] = [await SdkUser.connect(ctx.server, owner, slug), await SdkUser.connect(ctx.server, guest, slug)];
  const made = await a.api.roll.create(
    [
      { type: 'd20', theme: 'standard', value: 17, is_hidden: true },
      { type: 'd6', theme: 'standard', value: 4 },
    ],
    { room: slug },
  );
  const roll = made.data;
  t.is(roll.values[0]!.value, 17, 'the roller sees its hidden die');

  const heard = await b.until(() => b.created.find((r) => r.uuid === roll.uuid), 'RollCreated');
  t.deepEqual(heard, (await guest.api.get(`/roll/${roll.uuid}`)).body.data, 'the roll as GET /roll/{uuid} shows it to the listener');
  t.is(heard.values[0]!.value as number | null, null, 'the hidden die has no value for the other user');
  t.false(
    [heard.values[0]!.value, heard.values[0]!.value_to_display].some((v) => String(v) === '17'),
    'no trace of the hidden value',
  );
  t.is(heard.values[1]!.value, 4);
  const own = await a.until(() => a.created.find((r) => r.uuid === roll.uuid), 'RollCreated for the roller');
  t.is(own.values[0]!.value, 17, "the roller's own listener hears the value");

  // Rolls reach a client in the room's order: once a later roll is heard, any copy of the first
  // (on the SDK's private channels) would have arrived before it.
  const marker = (await a.api.roll.create([{ type: 'd4', theme: 'standard' }], { room: slug })).data;
  await b.until(() => b.created.some((r) => r.uuid === marker.uuid), 'the marker roll');
  await a.until(() => a.created.some((r) => r.uuid === marker.uuid), 'the marker roll for the roller');
  t.is(b.created.filter((r) => r.uuid === roll.uuid).length, 1, 'heard once, although listen() binds three channels');
  t.is(a.created.filter((r) => r.uuid === roll.uuid).length, 1);

  // The renderer's drag end: roll.update with meta.position, heard as a RollUpdated.
  const position = { x: 12.5, z: 40 };
  await a.api.roll.update(roll.uuid, { dice: [{ uuid: roll.values[0]!.uuid, meta: { position } }], room: slug });
  const update = await b.until(() => b.updated.find((r) => r.uuid === roll.uuid), 'RollUpdated');
  t.deepEqual(update, (await guest.api.get(`/roll/${roll.uuid}`)).body.data);
  t.deepEqual((update.values[0]!.meta as any).position, position);
  t.is(update.values[0]!.value as number | null, null, 'still hidden from the other user');
  t.is(b.updated.length, 1);
  a.close();
  b.close();
});

test('a room update is heard by both users, presented for each as GET /room shows it to them', async (t) => {
  const { owner, guest, slug } = await table(ctx.server);
  const [a, b] = [await SdkUser.connect(ctx.server, owner, slug), await SdkUser.connect(ctx.server, guest, slug)];
  await a.api.room.update(slug, { name: 'Renamed at the table', is_public: true, passcode: '' });
  const forB = await b.until(() => b.rooms.find((r) => r.name === 'Renamed at the table'), 'RoomUpdated');
  const forA = await a.until(() => a.rooms.find((r) => r.name === 'Renamed at the table'), 'RoomUpdated for the owner');
  t.deepEqual(forB, (await guest.api.get(`/room/${slug}`)).body.data);
  t.deepEqual(forA, (await owner.api.get(`/room/${slug}`)).body.data);
  a.close();
  b.close();
});

test("sendLocal('RollValueMoveEvent') reaches the other user's listenLocal once and never the sender; no value travels, only the roller moves its dice", async (t) => {
  const { owner, guest, slug } = await table(ctx.server);
  const [a, b] = [await SdkUser.connect(ctx.server, owner, slug), await SdkUser.connect(ctx.server, guest, slug)];
  const roll = (
    await a.api.roll.create(
      [
        { type: 'd6', theme: 'standard', value: 5 },
        { type: 'd20', theme: 'standard', value: 13, is_hidden: true },
      ],
      { room: slug },
    )
  ).data;
  const [open, hidden] = roll.values.map((v: IRollValue) => v.uuid);
  const move = (x: number, value?: number) => ({
    dice: [
      { uuid: open, meta: { position: { x, z: 40 } } },
      { uuid: hidden, meta: { position: { x, z: 41 } }, ...(value === undefined ? {} : { value }) },
    ],
    room: slug,
  });

  a.api.sendLocal('RollValueMoveEvent', move(10, 13));
  const heard = await b.until(() => b.moves[0], 'the move');
  t.deepEqual(heard, move(10), 'as sent, less the hidden value');
  // The client relay keeps one connection's order: the next move arrives after any copy of the first.
  a.api.sendLocal('RollValueMoveEvent', move(20));
  await b.until(() => b.moves.length >= 2, 'the second move');
  t.deepEqual(b.moves, [move(10), move(20)], 'each move once');

  // b answers with a move of its own die: a copy of a's own moves echoed to a would have come first.
  // b's move of a's dice is not b's to make, and is relayed to nobody.
  const [mine] = (await b.api.roll.create([{ type: 'd6', theme: 'standard' }], { room: slug })).data.values.map((v: IRollValue) => v.uuid);
  b.api.sendLocal('RollValueMoveEvent', move(25));
  const own = { dice: [{ uuid: mine, meta: { position: { x: 30, z: 40 } } }], room: slug };
  b.api.sendLocal('RollValueMoveEvent', own);
  await a.until(() => a.moves.length >= 1, "b's move");
  t.deepEqual(a.moves, [own], 'the sender never hears its own moves; nobody moves dice of others');
  a.close();
  b.close();
});
