import test, { type ExecutionContext } from 'ava';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, DiceClient, type Roll, type RoomSocket } from '../../src/client';
import { openApiDocument } from '../../src/openapi';
import { checkRecords, documentedOperations, exercised, recordResponses, validateSchema, type ResponseRecord } from '../helpers/openapi';
import { useServer } from '../helpers/server';
import { NOT_THE_SERVICE } from './recorder';
import { WebClient } from '../accounts/webClient';

/**
 * The typed client, end to end, against the real server: every endpoint of the document is called
 * through it (or, for pages and images, with fetch), and every response the server gives is checked
 * against the OpenAPI document: its status must be documented for that operation, its body must
 * match the schema, an error's code must be one listed for its status. Realtime payloads are checked
 * against the document's schemas too.
 */
// Metrics on, so that GET /metrics (an operator's endpoint, off by default) is exercised too.
const METRICS_TOKEN = 'metrics-token-of-the-openapi-test';
// WEBHOOK_ALLOW_PRIVATE: the webhooks deliver to a receiver on this machine (docs/webhooks.md, the SSRF rule).
const ctx = useServer(test, { METRICS_TOKEN, WEBHOOK_ALLOW_PRIVATE: 'true' });
const doc = openApiDocument();
const root = doc as unknown as Record<string, unknown>;

/** A real 1x1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

async function refused(t: { fail(m: string): void; is(a: unknown, b: unknown, m?: string): void }, promise: Promise<unknown>, status: number, code?: string) {
  try {
    await promise;
    t.fail(`expected ${status}`);
  } catch (err) {
    t.is((err as ApiError).status, status, (err as Error).message);
    if (code) t.is((err as ApiError).code, code);
  }
}

function waitFor<T>(socket: RoomSocket, event: 'RollCreateEvent' | 'RoomUpdateEvent', match: (data: any) => boolean): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${event} within 10 s`)), 10_000);
    const handler = (payload: { data: any }) => {
      if (!match(payload.data)) return;
      clearTimeout(timer);
      socket.off(event, handler as never);
      resolve(payload.data as T);
    };
    socket.on(event, handler as never);
  });
}

test('every endpoint through the typed client; every response matches the OpenAPI document', async (t) => {
  const server = ctx.server;
  const { records } = recordResponses(server.http);
  const anonymous = new DiceClient({ baseUrl: server.url });

  // Users
  const alice = await anonymous.asNewGuest();
  const bob = await anonymous.asNewGuest();
  const me = await alice.me();
  t.regex(me.uuid, /^[0-9a-f-]{36}$/);
  await refused(t, anonymous.withKey('dk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA').me(), 401, 'unauthorized');
  const renamedMe = await alice.updateMe({ name: 'Alice', username: `alice-${Date.now().toString(36)}` });
  t.is(renamedMe.name, 'Alice');
  await refused(t, bob.updateMe({ username: renamedMe.username.toUpperCase() }), 409, 'username_taken');
  const spare = await alice.createApiKey('spare');
  t.regex(spare.key, /^dk_[\w-]{43}$/);
  const aliceKeys = await alice.listApiKeys();
  t.deepEqual(
    aliceKeys.map((k) => k.is_current),
    [true, false],
  );
  await alice.deleteApiKey(spare.prefix);
  await refused(t, alice.deleteApiKey(aliceKeys[0]!.prefix), 409, 'last_key');

  // Rooms and participants
  const room = await alice.createRoom({ name: 'Typed client table', is_public: false });
  t.false(room.is_public);
  t.truthy(room.passcode);
  t.is((await alice.listRooms()).data[0]!.slug, room.slug);
  await refused(t, bob.getRoom(room.slug), 403, 'forbidden');
  await refused(t, bob.joinRoom(room.slug, 'wrong-passcode'), 403, 'forbidden');
  const joined = await bob.joinRoom(room.slug, room.passcode);
  t.is(joined.participants.length, 2);
  await refused(t, bob.joinRoom(room.slug, room.passcode), 409, 'already_participant');
  t.is((await bob.getRoom(room.slug)).slug, room.slug);
  const bobSeat = joined.participants.find((p) => p.user.uuid !== me.uuid)!;
  const renamed = await bob.updateParticipant(room.slug, bobSeat.id, { username: 'Bob the Bold', color: '#3cb44b' });
  t.is(renamed.participants.find((p) => p.id === bobSeat.id)!.username, 'Bob the Bold');
  t.is((await alice.updateRoom(room.slug, { name: 'Renamed table' })).name, 'Renamed table');
  const withBackground = await alice.setRoomBackground(room.slug, new Blob([PNG], { type: 'image/png' }), 'bg.png');
  t.truthy(withBackground.bg_file_path);
  const image = await fetch(withBackground.bg_file_path!);
  t.is(image.status, 200);
  t.is(image.headers.get('content-type'), 'image/png');
  await refused(t, alice.getRoom('no-such-room-here'), 404, 'not_found');

  // Realtime: Bob listens; Alice's roll reaches him with the values REST gives.
  const socket = bob.connectRoom(room.slug, { passcode: room.passcode });
  const firstRoomUpdate = waitFor<unknown>(socket, 'RoomUpdateEvent', () => true);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('connect_error', reject);
  });
  t.deepEqual(validateSchema({ $ref: '#/components/schemas/Room' }, await firstRoomUpdate, root), []);
  const arriving = waitFor<Roll>(socket, 'RollCreateEvent', () => true);

  // Rolls
  const roll = await alice.createRoll({ equation: '4d6kh3+2', theme: 'standard', room: room.slug, external_id: 'typed-client-1' });
  const live = await arriving;
  t.deepEqual(validateSchema({ $ref: '#/components/schemas/Roll' }, live, root), [], 'the realtime payload is a Roll');
  t.is(live.uuid, roll.uuid);
  t.deepEqual(
    live.values.map((v) => v.value),
    roll.values.map((v) => v.value),
  );
  t.is(live.total_value, roll.total_value);
  t.is(roll.values.filter((v) => v.is_dropped).length, 1);
  const labelled = await alice.createRoll({ equation: '4d6kh3+2', theme: 'standard', room: room.slug, external_id: 'typed-client-1' });
  t.not(labelled.uuid, roll.uuid, 'another roll with the same external_id is a roll of its own');
  const hidden = await alice.createRoll({
    dice: [
      { type: 'd20', theme: 'standard', is_hidden: true },
      { type: 'd8', theme: 'standard' },
    ],
    room: room.slug,
  });
  // A roll group through the typed client's RollOperator: each part its own keep, the higher part kept.
  const six = (value: number) => ({ type: 'd6', theme: 'standard', value });
  const grouped = await alice.createRoll({
    dice: [six(6), six(6), six(1), six(1), six(2), six(2), six(2), six(2)],
    operator: {
      k: {
        h3: [
          [0, 1, 2, 3],
          [4, 5, 6, 7],
        ],
      },
      groups: [
        {
          parts: [
            [0, 1, 2, 3],
            [4, 5, 6, 7],
          ],
          k: 'h1',
        },
      ],
    },
  });
  t.is(grouped.equation, '{4d6kh3, 4d6kh3}kh1');
  t.is(grouped.total_value, 13);
  t.deepEqual(
    grouped.values.map((v) => `${v.group}:${v.group_part}${v.is_dropped ? 'x' : ''}`),
    ['0:0', '0:0', '0:0', '0:0x', '0:1x', '0:1x', '0:1x', '0:1x'],
  );
  const seenByBob = await bob.getRoll(hidden.uuid);
  t.is(seenByBob.values[0]!.value, null, 'a hidden die keeps its value from others');
  t.not(hidden.values[0]!.value, null);
  const revealed = await alice.updateRoll(hidden.uuid, [{ uuid: hidden.values[0]!.uuid, is_hidden: false }]);
  t.false(revealed.values[0]!.is_hidden);
  const bulk = await alice.updateRolls([{ uuid: roll.uuid, dice: [{ uuid: roll.values[0]!.uuid, is_hidden: true }] }]);
  t.is(bulk.length, 1);
  const cleared = await alice.updateRoomRolls(room.slug, { is_cleared: true });
  t.true(cleared.every((r) => r.values.every((v) => v.is_cleared)));
  const history = await bob.listRoomRolls(room.slug, { limit: 1 });
  t.is(history.data.length, 1);
  t.truthy(history.links.next);
  const roomStats = await bob.getRoomStats(room.slug, { type: 'D20' });
  t.true(roomStats.dice.every((d) => d.type === 'd20'));
  t.true((await alice.getUserStats()).rolls >= 1);
  await refused(t, bob.getRoomStats(room.slug, { since: 'yesterday' }), 400, 'validation_error');
  const ledger = await bob.getRoomLedger(room.slug);
  t.is(ledger.ledger, roll.fairness!.ledger);
  const batch = await bob.getRoomLedgerBatch(room.slug, ledger.current!.batch);
  t.is(batch.leaves.length, 256);
  await alice.createRoll({ dice: [{ type: 'd6', theme: 'standard' }] });
  t.true((await alice.getUserLedger()).next_draw >= 1);
  t.is((await alice.getUserLedgerBatch(0)).leaves[0]!.state, 'used');
  await refused(t, alice.createRoll({ dice: [{ type: 'd1001', theme: 'standard' }] }), 422);
  await refused(t, alice.createRoll({ equation: '2d6+', theme: 'standard' }), 400);
  await refused(t, alice.createRoll({}), 400, 'validation_error');
  await refused(t, bob.updateRoll(roll.uuid, [{ uuid: roll.values[0]!.uuid, is_hidden: false }]), 403);

  // Themes: a version with a texture, a second version, its files.
  const themeId = `typed-${Date.now().toString(36)}`;
  const manifest = {
    api_version: '1.0',
    id: themeId,
    name: 'Typed oak',
    description: 'Made by the typed client',
    version: '1.0.0',
    label: { color: '', background_color: '' },
    available_dice: ['d6', 'd20'],
    textures: [{ binding: 'map', src: 'oak.png' }],
  };
  const published = await alice.createTheme({ manifest, assets: [{ name: 'oak.png', data: new Blob([PNG], { type: 'image/png' }) }] });
  t.is(published.id, themeId);
  await refused(t, alice.createTheme({ manifest, assets: [{ name: 'oak.png', data: new Blob([PNG], { type: 'image/png' }) }] }), 409);
  t.true((await alice.listThemes({ per_page: 100 })).data.some((th) => th.id === themeId));
  t.is((await alice.getTheme(themeId)).version, '1.0.0');
  t.is((await alice.getThemeVersion(themeId, '1.0.0')).id, themeId);
  // Files: at the URL the answer gave, without a key; by name with the key.
  t.is(published.textures![0]!.src, published.assets!['oak.png']);
  const asset = await fetch(published.assets!['oak.png']!);
  t.is(asset.status, 200);
  const notModified = await fetch(published.assets!['oak.png']!, { headers: { 'if-none-match': asset.headers.get('etag')! } });
  t.is(notModified.status, 304);
  const byName = `${server.url}/api/1.0/theme/${themeId}/version/1.0.0/asset/oak.png`;
  t.is((await fetch(byName, { headers: { authorization: `Bearer ${alice.apiKey}` } })).status, 200);
  t.is((await fetch(byName, { headers: { authorization: `Bearer ${alice.apiKey}`, 'if-none-match': asset.headers.get('etag')! } })).status, 304);

  // Share requests and the dice box: Alice shares her theme, Bob accepts it.
  const share = await alice.createShareRequest({ theme: themeId, max_uses: 5 });
  t.truthy(share.id);
  t.is((await alice.listShareRequests()).data[0]!.code, share.code);
  t.is((await alice.getShareRequest(share.id!)).code, share.code);
  t.is((await alice.updateShareRequest(share.id!, { max_uses: 10 })).max_uses, 10);
  const preview = await bob.previewShareRequest(share.code);
  t.false('id' in preview, 'a preview shows no owner-only field');
  const page = await fetch(share.url);
  t.is(page.status, 200);
  // The theme's preview, without a key, through the link's code; the page and its script.
  t.is((await anonymous.getThemePreview(themeId, { share: share.code })).user, null);
  t.is((await anonymous.getThemePreview(themeId, { version: '1.0.0', share: share.code })).version, '1.0.0');
  await refused(t, anonymous.getThemePreview(themeId), 404, 'not_found');
  for (const path of [
    `/theme/${themeId}/preview?share=${share.code}`,
    `/theme/${themeId}/version/1.0.0/preview?share=${share.code}`,
    '/board/assets/preview.js',
  ]) {
    t.is((await fetch(`${server.url}${path}`)).status, 200, path);
  }
  t.is((await bob.acceptShareRequest(share.code)).id, themeId);
  await refused(t, bob.acceptShareRequest(share.code), 409);
  t.true((await bob.listDiceBox({ filter: 'typed' })).data.some((th) => th.id === themeId));
  t.is((await bob.getDiceBoxTheme(themeId)).version, '1.0.0');
  await alice.createTheme({ manifest: { ...manifest, version: '1.1.0' }, assets: [{ name: 'oak.png', data: new Blob([PNG], { type: 'image/png' }) }] });
  t.is((await alice.listThemeVersions(themeId)).data.length, 2);
  t.is((await bob.upgradeDiceBoxTheme(themeId)).version, '1.1.0');
  await bob.removeDiceBoxTheme(themeId);
  await refused(t, bob.getDiceBoxTheme(themeId), 404);
  await alice.deleteShareRequest(share.id!);
  await refused(t, bob.previewShareRequest(share.code), 410, 'gone');
  t.is((await fetch(share.url)).status, 410);
  await alice.deleteTheme(themeId);
  await refused(t, alice.getTheme(themeId), 404);

  // The Pusher gateway's channel authorisation (no envelope).
  const grant = await alice.authorizeChannel('123.456', `presence-room.${room.slug}`);
  t.regex(grant.auth, /:[0-9a-f]{64}$/);
  t.is(JSON.parse(grant.channel_data).user_info.user.uuid, (await alice.me()).uuid);

  // Webhooks, delivering to a receiver of this test's own.
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  // Not the service: the suite-wide check of recorded responses (test/openapi/record.ts) leaves it out.
  (receiver as unknown as Record<symbol, unknown>)[NOT_THE_SERVICE] = true;
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  try {
    const hook = await alice.createWebhook({
      url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
      events: ['roll.created'],
      room: room.slug,
    });
    t.regex(hook.secret, /^whsec_/);
    t.true((await alice.listWebhooks()).data.some((w) => w.id === hook.id));
    t.is((await alice.getWebhook(hook.id)).id, hook.id);
    t.deepEqual((await alice.updateWebhook(hook.id, { events: ['*'] })).events, ['*']);
    t.regex((await alice.rotateWebhookSecret(hook.id)).secret, /^whsec_/);
    await alice.testWebhook(hook.id);
    t.true((await alice.listWebhookDeliveries(hook.id)).data.length >= 1);
    await refused(t, bob.getWebhook(hook.id), 404);
    await alice.deleteWebhook(hook.id);
  } finally {
    await new Promise((resolve) => receiver.close(resolve));
  }

  // Leaving, clearing, deleting.
  socket.disconnect();
  await alice.clearRoomTable(room.slug);
  await bob.removeParticipant(room.slug, bobSeat.id);
  await alice.deleteRoom(room.slug);
  await refused(t, alice.getRoom(room.slug), 404);

  // Pages and operations outside the client.
  for (const path of [
    '/',
    '/healthz',
    '/readyz',
    '/docs',
    '/api/1.0/openapi.json',
    `/board/${room.slug}`,
    '/board/assets/board.css',
    '/board/assets/board.js',
    '/pages/assets/home.js',
    '/pages/assets/home.css',
    '/fairness',
  ]) {
    t.is((await fetch(`${server.url}${path}`)).status, 200, path);
  }
  t.is((await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).status, 200, '/metrics');
  t.is((await fetch(`${server.url}/?room=${room.slug}`, { redirect: 'manual' })).status, 303);
  await exerciseAccountPages(t, server.url);
  await exerciseRoomPages(t, server.url, room.slug);
  await exercisePageKeyAndActivation(t, server.url);

  const problems = checkRecords(records);
  t.deepEqual([...new Set(problems)], [], 'responses that do not match the document');
  const done = exercised(records);
  const missing = documentedOperations()
    .filter((op) => !done.has(`${op.method} ${op.path}`))
    .map((op) => `${op.method.toUpperCase()} ${op.path}`);
  t.deepEqual(missing, [], 'documented operations this test did not see succeed');
  t.true(records.length > 50, `${records.length} responses checked`);
});

/** The account pages (docs/accounts.md), as a browser uses them: every one answered as documented. */
async function exerciseAccountPages(t: ExecutionContext, base: string) {
  const guest = await new WebClient(base).get('/claim');
  t.is(guest.status, 200);
  const key = ((await (await fetch(`${base}/api/1.0/user`, { method: 'POST' })).json()) as { data: string }).data;
  const web = new WebClient(base);
  t.is((await web.signUp(`contract${Date.now() % 100000}`, 'a long password')).status, 303);
  t.is((await web.get('/account')).status, 200);
  const made = await web.post('/account/keys', { label: 'contract' });
  t.is(made.status, 201);
  t.is((await web.post('/account/keys/revoke', { prefix: made.state!.account!.newKey!.prefix })).status, 303);
  t.is((await web.post('/account/password', { current: 'a long password', password: 'another long password' })).status, 303);
  const username = `claimed${Date.now() % 100000}`;
  const claimer = new WebClient(base);
  await claimer.get('/claim');
  t.is((await claimer.post('/claim', { key, username, password: 'a long password' })).status, 303);
  await claimer.get('/account');
  t.is((await claimer.post('/signout', {})).status, 303);
  t.is((await claimer.signIn(username, 'a long password')).status, 303);
  for (const file of ['accounts.js', 'accounts.css']) t.is((await fetch(`${base}/accounts/assets/${file}`)).status, 200, file);
}

/** A room's page, its stream address and their assets, and dddice's theme address (docs/board.md). */
async function exerciseRoomPages(t: ExecutionContext, base: string, slug: string) {
  const paths = [
    `/room/${slug}`,
    `/room/${slug}/settings`,
    `/room/${slug}/stream?key=dk_x&sound=1`,
    '/room-page/assets/room.js',
    '/room-page/assets/room.css',
    '/room-page/assets/stream.js',
    '/dice/standard',
    '/dice-box',
    '/dice-pages/assets/diceBox.js',
    '/dice-pages/assets/dice.css?of=theme.js',
  ];
  for (const path of paths) t.is((await fetch(`${base}${path}`)).status, 200, path);
  t.is((await fetch(`${base}/dice/no-such-theme`)).status, 404);
}

/** The signed-in pages' key, and an activation code made, polled and approved (docs/accounts.md). */
async function exercisePageKeyAndActivation(t: ExecutionContext, base: string) {
  const web = new WebClient(base);
  t.is((await web.signUp(`activator${Date.now() % 100000}`, 'a long password')).status, 303);
  await web.get('/account');
  const pageKey = await fetch(`${base}/account/page-key`, {
    method: 'POST',
    headers: { origin: base, 'sec-fetch-site': 'same-origin', 'x-csrf-token': web.csrf, cookie: web.cookieHeader() },
  });
  t.is(pageKey.status, 201, 'POST /account/page-key');
  const made = await fetch(`${base}/api/1.0/activate`, { method: 'POST', headers: { 'x-extension': 'Contract test' } });
  t.is(made.status, 201, 'POST /api/1.0/activate');
  const { code, secret } = ((await made.json()) as { data: { code: string; secret: string } }).data;
  const poll = () => fetch(`${base}/api/1.0/activate/${code}`, { headers: { authorization: `Secret ${secret}` } });
  t.is((await poll()).status, 200, 'GET /api/1.0/activate/{code} before approval');
  t.is((await web.get(`/activate?code=${code}`)).status, 200, 'GET /activate');
  t.is((await web.post('/activate', { code })).status, 200, 'POST /activate');
  t.is((await poll()).status, 200, 'the approved poll');
  for (const file of ['activate.js', 'activate.css']) t.is((await fetch(`${base}/activation/assets/${file}`)).status, 200, file);
  // Making dice (docs/pages.md): the upload page and the editor, signed in, and their assets.
  t.is((await web.get('/dice/new')).status, 200, 'GET /dice/new');
  t.is((await web.get('/dice/standard/edit')).status, 200, 'GET /dice/{id}/edit');
  for (const file of ['editor.js', 'editor.css']) t.is((await fetch(`${base}/dice-editor/assets/${file}`)).status, 200, file);
}

test('the checker notices a response that breaks the document', (t) => {
  const good: ResponseRecord = {
    method: 'get',
    path: '/api/1.0/user',
    status: 200,
    contentType: 'application/json; charset=utf-8',
    body: {
      type: 'user',
      data: {
        uuid: '3f0b6c9e-1d2a-4b8e-9c1f-2a3b4c5d6e7f',
        username: 'guest-1',
        name: 'Guest',
        is_registered: false,
        subscription: false,
        subscription_level: 0,
        is_merchant: false,
        created_at: '2026-01-02T03:04:05.123000Z',
        updated_at: '2026-01-02T03:04:05.123000Z',
      },
    },
  };
  t.deepEqual(checkRecords([good]), []);
  const leak = structuredClone(good);
  (leak.body as any).data.email = 'a@b.c';
  t.regex(checkRecords([leak]).join('\n'), /unexpected property "email"/);
  const badTime = structuredClone(good);
  (badTime.body as any).data.created_at = '2026-01-02T03:04:05Z';
  t.regex(checkRecords([badTime]).join('\n'), /does not match/);
  t.regex(checkRecords([{ ...good, status: 418 }]).join('\n'), /status 418 is not documented/);
  const oddCode = { ...good, status: 401, body: { type: 'error', data: { code: 'nope', message: 'x' } } };
  t.regex(checkRecords([oddCode]).join('\n'), /error code "nope" is not documented/);
  t.regex(checkRecords([{ ...good, path: '/api/1.0/nothing' }]).join('\n'), /no such operation/);
  t.throws(() => validateSchema({ type: 'string', format: 'email', multipleOf: 2 }, 'x', {}), { message: /multipleOf/ });
});
