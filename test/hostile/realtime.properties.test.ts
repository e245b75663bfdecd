import test from 'ava';
import fc from 'fast-check';
import WebSocket from 'ws';
import { io } from 'socket.io-client';
import { withDeadline } from '../helpers/deadline';
import { SDK_KEY } from '../helpers/pusher';
import { useServer } from '../helpers/server';
import { closeAll, connectWelcomed, type Client } from '../helpers/sockets';
import { runSeed } from './prng';
import { healthz, rawUpgrade, RawPusher, upgradeRequest } from './realtimeWire';

// Property tests at every realtime entry point of a running server: raw HTTP upgrades, Pusher frames
// on a subscribed connection, Socket.IO events and handshakes, and raw Engine.IO packets. Each batch
// of generated inputs is followed by GET /healthz (200) and a check that the connection under test
// still answers or was closed the protocol's way. A guard that had to catch something (Pusher close
// 4199, a Socket.IO socket dropped by the server) fails the property too: the shape checks should
// have refused it first. HOSTILE_COUNT scales the cases per entry point (default 300); HOSTILE_SEED
// replays a run.
const SEED = runSeed();
const COUNT = Number(process.env.HOSTILE_COUNT || 300);
console.log(`realtime properties: seed ${SEED} (HOSTILE_SEED=${SEED} replays it), ${COUNT} cases per entry point`);
const ctx = useServer(test, { SOCKET_BYTES_PER_SECOND: '100000000' });
const sockets: Client[] = [];
test.after.always(() => closeAll(...sockets));

/** Batches of 1 to `size` cases (lengths spread over the whole range: `size: 'max'`), about COUNT cases in all. */
const runsFor = (size: number) => ({ seed: SEED, numRuns: Math.max(1, Math.ceil((COUNT * 2) / (size + 1))), endOnFailure: true, includeErrorInReport: true });

// ---------------------------------------------------------------------------------------- values

const evilKey = fc.oneof(
  fc.constantFrom(
    'toString',
    'valueOf',
    '__proto__',
    'constructor',
    'hasOwnProperty',
    'toJSON',
    'then',
    'length',
    'channel',
    'data',
    'event',
    'auth',
    'channel_data',
    'dice',
    'uuid',
    'token',
    'since_seq',
  ),
  fc.string({ maxLength: 8 }),
);
/** Any value, with keys that shadow Object.prototype and the fields the server reads. */
const anything = (withDate: boolean) =>
  fc.anything({
    key: evilKey,
    maxDepth: 3,
    maxKeys: 5,
    withNullPrototype: true,
    withObjectString: true,
    withBoxedValues: true,
    withMap: true,
    withSet: true,
    withTypedArray: true,
    withSparseArray: true,
    withDate,
    withUnicodeString: true,
  });
const hostile = anything(true);
/** socket.io-client copies a payload with binary parts before sending and throws on some dates in it: the test's client, not the server. */
const hostileArg = anything(false);
const json = (value: unknown) => JSON.stringify(value) ?? 'null';
const deep = (n: number, open: string, close: string, inner = '1') => open.repeat(n) + inner + close.repeat(n);

// -------------------------------------------------------------------------------------- the world

async function world() {
  const owner = await ctx.server.newUser();
  const slug = (await owner.api.post('/room', { name: 'Hostile' })).body.data.slug as string;
  const roll = (await owner.api.post('/roll', { dice: [{ type: 'd6', theme: 'standard' }], room: slug })).body.data;
  return { owner, slug, value: roll.values[0].uuid as string };
}
let shared: Promise<Awaited<ReturnType<typeof world>>> | null = null;
const theWorld = () => (shared ??= world());

// ----------------------------------------------------------------------------------------- upgrades

const pathPiece = fc.oneof(
  fc.constantFrom('%C0%80', '%', '%Z', '%ZZ', '%E0%A4%A', '%00', '%2F', '%FF', '/', '//', '..', '.', '?', '#', '&', '=', ';', '\\', '@', ':', SDK_KEY, 'app'),
  fc.string({ unit: 'grapheme-ascii', maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 4 }),
);
const upgradePath = fc.oneof(
  fc.constantFrom(
    '//',
    '/',
    '*',
    '/app',
    '/app/',
    '/app//',
    '//app/x',
    'http://x/app/' + SDK_KEY + '?protocol=7',
    'http:/',
    '/app/%C0%80',
    `/app/${SDK_KEY}?protocol=7`,
    '/socket.io/?EIO=4&transport=websocket',
    '/socket.io/?EIO=3&transport=websocket&sid=x',
    '/socket.io/?EIO=%C0&transport=%',
  ),
  fc.array(pathPiece, { maxLength: 6 }).map((parts) => `/app/${parts.join('')}`),
  fc.tuple(fc.array(pathPiece, { maxLength: 4 }), fc.array(pathPiece, { maxLength: 6 })).map(([p, q]) => `/app/${p.join('') || SDK_KEY}?${q.join('')}`),
  fc.array(pathPiece, { maxLength: 6 }).map((parts) => `/${parts.join('')}`),
  fc.string({ unit: 'binary', maxLength: 40 }),
);
const headerValue = fc.oneof(
  fc.string({ unit: 'grapheme-ascii', maxLength: 60 }),
  fc.constantFrom('', ',,,', 'permessage-deflate; client_max_window_bits=0', 'a'.repeat(8000), '1.2.3.4, ::1, %%', '13', '8', 'x'),
);
const upgradeHeaders = fc.array(
  fc.tuple(
    fc.oneof(
      fc.constantFrom(
        'Sec-WebSocket-Protocol',
        'Sec-WebSocket-Extensions',
        'Sec-WebSocket-Version',
        'Sec-WebSocket-Key',
        'X-Forwarded-For',
        'Origin',
        'Host',
        'Cookie',
        'Authorization',
        'Content-Length',
        'Transfer-Encoding',
      ),
      fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,15}$/),
    ),
    headerValue,
  ),
  { maxLength: 4 },
);

test('upgrades: generated paths, query strings and headers, sent raw, never stop the server; /app/ keys that do not decode get a 400', async (t) => {
  const base = ctx.server.url;
  const statuses = new Map<string, number>();
  await fc.assert(
    fc.asyncProperty(fc.array(fc.tuple(upgradePath, upgradeHeaders), { minLength: 1, maxLength: 25, size: 'max' }), async (batch) => {
      const outcomes = await Promise.all(
        batch.map(([path, headers]) =>
          rawUpgrade(
            base,
            Buffer.from(
              upgradeRequest(path, headers)
                .toString('latin1')
                .replace(/^GET .* HTTP/, `GET ${path} HTTP`),
              'utf8',
            ),
            150,
          ),
        ),
      );
      outcomes.forEach((o, i) => {
        statuses.set(String(o.status), (statuses.get(String(o.status)) ?? 0) + 1);
        if (o.status !== null && o.status >= 500) throw new Error(`${json(batch[i])} answered ${o.status}`);
      });
      if ((await healthz(base)) !== 200) throw new Error('GET /healthz did not answer 200 after the batch');
    }),
    runsFor(25),
  );
  t.log(`upgrade answers: ${[...statuses].map(([s, n]) => `${s}×${n}`).join(' ')}`);
  const undecodable = await rawUpgrade(base, upgradeRequest('/app/%C0%80?protocol=7'));
  t.is(
    undecodable.status,
    400,
    `an /app/ key that does not decode (${undecodable.ended ? 'the connection ended' : 'no answer within 10 s'}: ${JSON.stringify(undecodable.head)})`,
  );
});

// ----------------------------------------------------------------------------------- Pusher frames

async function subscribedPusher(slug: string, key: string): Promise<RawPusher> {
  const pusher = await RawPusher.open(ctx.server.url);
  const channel = `presence-room.${slug}`;
  const res = await fetch(`${ctx.server.url}/broadcasting/auth`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ socket_id: pusher.socketId, channel_name: channel }),
  });
  const grant = (await res.json()) as { auth: string; channel_data: string };
  pusher.send(JSON.stringify({ event: 'pusher:subscribe', data: { channel, auth: grant.auth, channel_data: grant.channel_data } }));
  await pusher.until(() => pusher.frames.find((f) => f.event === 'pusher_internal:subscription_succeeded'), 'subscription_succeeded');
  return pusher;
}

/** Closes a generated frame may cause: too big for SOCKET_MAX_PACKET_BYTES (1009). Anything else (4199: a guard caught a failure; 1006: cut) fails. */
const FRAME_CLOSES = new Set([1009]);

function pusherFrame(slug: string, value: string) {
  const channelName = fc.oneof(
    fc.constantFrom(`presence-room.${slug}`, `private-room.${slug}.00000000-0000-4000-8000-000000000000`, 'private-user.x', '', 'presence-room.'),
    fc.string({ maxLength: 20 }),
    hostile,
  );
  const event = fc.oneof(
    fc.constantFrom(
      'pusher:subscribe',
      'pusher:unsubscribe',
      'pusher:ping',
      'pusher:pong',
      'pusher:signin',
      'client-RollValueMoveStartEvent',
      'client-RollValueMoveEvent',
      'client-RollValueMoveEndEvent',
      'client-x',
      'pusher_internal:subscription_succeeded',
    ),
    fc.string({ maxLength: 30 }),
    hostile,
  );
  const die = fc.record(
    {
      uuid: fc.oneof(fc.constant(value), fc.uuid(), hostile),
      meta: fc.oneof(hostile, fc.record({ position: fc.record({ x: fc.oneof(fc.double(), hostile), y: fc.double(), z: fc.double() }) })),
      value: hostile,
    },
    { requiredKeys: [] },
  );
  const data = fc.oneof(
    hostile,
    hostile.map(json),
    fc.record(
      { channel: channelName, auth: fc.oneof(fc.string(), hostile), channel_data: fc.oneof(fc.string(), hostile, hostile.map(json)) },
      { requiredKeys: [] },
    ),
    fc.record({ dice: fc.oneof(fc.array(die, { maxLength: 3 }), hostile), room: fc.oneof(fc.constant(slug), hostile) }, { requiredKeys: [] }),
  );
  const structured = fc.record({ event, channel: channelName, data }, { requiredKeys: [] }).map((f) => ({ text: json(f) }));
  return fc.oneof(
    { weight: 6, arbitrary: structured },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          '{"event":"pusher:unsubscribe","data":{"channel":{"toString":1}}}',
          '{"event":"pusher:subscribe","data":{"channel":{"toString":1}}}',
          '{"event":{"toString":1}}',
          '{"event":"client-x","channel":"presence-room.' + slug + '","data":{"__proto__":{"dice":1}}}',
          '{"event":"pusher:subscribe","data":"{\\"channel\\":{\\"valueOf\\":1}}"}',
        )
        .map((text) => ({ text })),
    },
    { weight: 2, arbitrary: hostile.map((v) => ({ text: json(v) })) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }).map((text) => ({ text })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 50, max: 7000 }), fc.constantFrom('[', '{"a":'))
        .map(([n, open]) => ({ text: `{"event":"pusher:subscribe","data":${deep(n, open, open === '[' ? ']' : '}')}}` })),
    },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 15_000, max: 20_000 }).map((n) => ({
        text: json({ event: 'client-RollValueMoveEvent', channel: `presence-room.${slug}`, data: { dice: [{ uuid: value, x: 'a'.repeat(n) }] } }),
      })),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((bytes) => ({ binary: Buffer.from(bytes) })) },
  );
}

test('Pusher frames: generated frames on a subscribed connection get an answer or a protocol close, never a crash or a caught failure', async (t) => {
  const { owner, slug, value } = await theWorld();
  let closes = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(pusherFrame(slug, value), { minLength: 1, maxLength: 15, size: 'max' }), async (frames) => {
      const pusher = await subscribedPusher(slug, owner.key);
      try {
        for (const frame of frames) {
          if ('binary' in frame) pusher.send(frame.binary, true);
          else pusher.send(frame.text);
        }
        if (pusher.open) await Promise.race([pusher.pingPong(), pusher.until(() => pusher.closeCode !== null, 'close')]);
        if (pusher.closeCode !== null) {
          closes++;
          if (!FRAME_CLOSES.has(pusher.closeCode))
            throw new Error(
              `closed with ${pusher.closeCode} after ${frames.length} frames: ${frames.map((f) => ('text' in f ? f.text : '(binary)').slice(0, 200)).join(' | ')}`,
            );
        }
      } finally {
        pusher.close();
      }
      if ((await healthz(ctx.server.url)) !== 200) throw new Error('GET /healthz did not answer 200 after the batch');
    }),
    runsFor(15),
  );
  t.log(`connections closed by a size limit: ${closes}`);
  t.pass();
});

// ------------------------------------------------------------------------------- Socket.IO events

const RESERVED = new Set(['connect', 'connect_error', 'disconnect', 'disconnecting', 'newListener', 'removeListener']);
const MOVES = ['RollValueMoveStartEvent', 'RollValueMoveEvent', 'RollValueMoveEndEvent'];

test('Socket.IO events: generated names, payloads, binary attachments and acks are refused or relayed; the socket stays and a valid move still passes', async (t) => {
  const { owner, slug, value } = await theWorld();
  const friend = await ctx.server.newUser();
  await friend.api.post(`/room/${slug}/participant`);
  const sender = await connectWelcomed(ctx.server.url, slug, { token: owner.key }, sockets);
  const watcher = await connectWelcomed(ctx.server.url, slug, { token: friend.key }, sockets);
  const point = fc.record({ x: fc.oneof(fc.double(), hostileArg), y: fc.double(), z: fc.double(), w: fc.oneof(fc.double(), hostileArg) }, { requiredKeys: [] });
  const move = fc.record(
    {
      uuid: fc.oneof(fc.constant(value), fc.uuid(), hostileArg),
      roll_value_uuid: fc.oneof(fc.constant(value), hostileArg),
      roll_uuid: hostileArg,
      position: fc.oneof(point, hostileArg),
      rotation: fc.oneof(point, hostileArg),
    },
    { requiredKeys: [] },
  );
  const name = fc.oneof(
    fc.constantFrom(...MOVES),
    fc.string({ minLength: 1, maxLength: 20, size: 'max' }).filter((s) => !RESERVED.has(s)),
  );
  const arg = fc.oneof(
    hostileArg,
    move,
    fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
  );
  const event = fc.record({ name, args: fc.array(arg, { maxLength: 3 }), ack: fc.boolean() });
  let sentinel = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(event, { minLength: 1, maxLength: 20, size: 'max' }), async (events) => {
      for (const e of events) sender.socket.emit(e.name, ...e.args, ...(e.ack ? [() => undefined] : []));
      // In order after the batch: a valid drag, relayed to the other participant. The batch's own moves
      // spend the socket's move budget (60 a second, bursts of 120: over it moves are dropped by
      // design), so the drag is sent again until one gets through.
      const x = ++sentinel;
      for (let attempt = 1; ; attempt++) {
        sender.emit('RollValueMoveStartEvent', { uuid: value, position: { x, y: 0, z: 0 } });
        try {
          await watcher.waitFor('RollValueMoveStartEvent', (p) => p?.data?.position?.x === x, 500);
          break;
        } catch (err) {
          if (attempt === 20) throw err;
        }
      }
      if (!sender.socket.connected) throw new Error(`the server dropped the socket after: ${events.map((e) => e.name).join(', ')}`);
      if ((await healthz(ctx.server.url)) !== 200) throw new Error('GET /healthz did not answer 200 after the batch');
    }),
    runsFor(20),
  );
  t.true(sender.socket.connected);
});

test('Socket.IO handshakes: generated auth and query objects are admitted or refused with connect_error, never hang or crash', async (t) => {
  const { owner, slug } = await theWorld();
  const auth = fc.oneof(
    fc.dictionary(evilKey, hostile, { maxKeys: 5 }),
    fc.record({ token: fc.oneof(fc.constant(owner.key), hostile), since: hostile, since_seq: hostile, passcode: hostile }, { requiredKeys: [] }),
  );
  const query = fc.dictionary(fc.stringMatching(/^[a-z_]{1,10}$/), fc.string({ unit: 'grapheme-ascii', maxLength: 40 }), { maxKeys: 4 });
  const namespace = fc.oneof(fc.constant(`/room/${slug}`), fc.constant('/user'), fc.stringMatching(/^\/room\/[\w-]{0,30}$/), fc.constant('/'));
  const outcomes = new Map<string, number>();
  await fc.assert(
    fc.asyncProperty(fc.array(fc.record({ auth, query, namespace }), { minLength: 1, maxLength: 8, size: 'max' }), async (batch) => {
      await Promise.all(
        batch.map(
          ({ auth: a, query: q, namespace: nsp }) =>
            new Promise<void>((resolve, reject) => {
              const socket = io(`${ctx.server.url}${nsp}`, {
                auth: a as Record<string, unknown>,
                query: q,
                transports: ['websocket'],
                forceNew: true,
                reconnection: false,
                timeout: 10_000,
              });
              const done = (what: string) => {
                outcomes.set(what, (outcomes.get(what) ?? 0) + 1);
                socket.disconnect();
                resolve();
              };
              socket.once('connect', () => done('connected'));
              socket.once('connect_error', (err: Error) =>
                err.message === 'timeout' ? reject(new Error(`no answer to the handshake ${json({ a, q, nsp })}`)) : done(err.message),
              );
            }),
        ),
      );
      if ((await healthz(ctx.server.url)) !== 200) throw new Error('GET /healthz did not answer 200 after the batch');
    }),
    { ...runsFor(8), numRuns: Math.max(1, Math.ceil(COUNT / 9)) },
  );
  t.log(`handshakes: ${[...outcomes].map(([s, n]) => `${s}×${n}`).join(' ')}`);
  t.pass();
});

// --------------------------------------------------------------------------- raw Engine.IO packets

test('raw Engine.IO and Socket.IO packets on a connected room socket: malformed ones close at most their connection', async (t) => {
  const { owner, slug } = await theWorld();
  const nsp = `/room/${slug}`;
  const packet = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 60 }),
    fc.string({ maxLength: 40 }).map((s) => `4${s}`),
    hostile.map((v) => `42${nsp},${json(v)}`),
    fc.array(hostile, { maxLength: 3 }).map((args) => `42${nsp},${json(['RollValueMoveEvent', ...args])}`),
    hostile.map((v) => `40${nsp},${json(v)}`),
    fc.tuple(fc.integer({ min: -1, max: 99 }), hostile).map(([n, v]) => `45${n}-${nsp},${json(['RollValueMoveEvent', { _placeholder: true, num: n }, v])}`),
    fc.integer({ min: 100, max: 3000 }).map((n) => `42${nsp},${deep(n, '[', ']')}`),
    fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
  );
  await fc.assert(
    fc.asyncProperty(fc.array(packet, { minLength: 1, maxLength: 15, size: 'max' }), async (packets) => {
      const ws = new WebSocket(`${ctx.server.url.replace(/^http/, 'ws')}/socket.io/?EIO=4&transport=websocket`);
      const received: string[] = [];
      const arrived = () =>
        withDeadline(
          new Promise((resolve, reject) => {
            ws.once('message', (m) => resolve(received.push(String(m))));
            ws.once('error', reject);
          }),
          10_000,
          `a frame from the server (received: ${JSON.stringify(received)})`,
        );
      await arrived();
      // Connected to the room's namespace first: the packets reach a socket that has handlers.
      ws.send(`40${nsp},${JSON.stringify({ token: owner.key })}`);
      while (!received.some((m) => m.startsWith(`40${nsp},{"sid"`))) await arrived();
      for (const p of packets) if (ws.readyState === WebSocket.OPEN) ws.send(p);
      await new Promise((resolve) => setTimeout(resolve, 20));
      ws.terminate();
      if ((await healthz(ctx.server.url)) !== 200) throw new Error('GET /healthz did not answer 200 after the batch');
    }),
    runsFor(15),
  );
  t.pass();
});
