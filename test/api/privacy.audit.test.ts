import { randomUUID } from 'node:crypto';
import test, { type ExecutionContext } from 'ava';
import { useServer } from '../helpers/server';
import type { HttpResponse } from '../helpers/http';
import { png } from '../fixtures/assets';
import { manifest, postTheme } from '../fixtures/themes';
import type { NewUser, Roll } from './rolls.support';
import { seatCast, type Cast } from '../helpers/cast';

/**
 * Adversarial privacy audit of the REST API: strangers, bystanders, whispered and removed
 * participants, the owner and the roller, against every answer that carries a roll or a room, plus
 * keys, ids, share requests, themes and error bodies. Every refusal is checked next to the case that
 * must work (the roller does see the value), so that each test can fail.
 */

const ctx = useServer(test);

const d = (type: string, extra: Record<string, unknown> = {}) => ({ type, theme: 'standard', ...extra });

// ---------------------------------------------------------------------------------------------
// What no answer may ever carry

const USER_KEYS = ['created_at', 'is_merchant', 'is_registered', 'name', 'subscription', 'subscription_level', 'updated_at', 'username', 'uuid'];
const INTERNAL_KEYS = new Set([
  'user_id',
  'userId',
  'room_id',
  'roomId',
  'roll_id',
  'rollId',
  'theme_id',
  'themeId',
  'participant_id',
  'participantId',
  'key_hash',
  'keyHash',
  'api_key',
  'apiKey',
  'token',
  'stack',
  'sql',
  'password',
  'numeric_value',
  'numericValue',
  'origin',
  'position_in_roll',
]);
// `die_index` is no internal: the index of a value's die in the roll request's own `dice` (docs/api/rolls.md),
// which every viewer of the roll sees, as they see rerolls and explosions on the board.

/** Paths in `body` that expose internals: numeric ids (participants aside), foreign keys, key material, user fields beyond the public ones. */
function internals(body: unknown, path = '$', out: string[] = []): string[] {
  if (Array.isArray(body)) body.forEach((v, i) => internals(v, `${path}[${i}]`, out));
  else if (body && typeof body === 'object') {
    const o = body as Record<string, unknown>;
    // A participant, or a whisper recipient's pivot (`participant`: the same participant's public id again).
    const isParticipant = ('position' in o || path.endsWith('.participant')) && 'color' in o;
    if ('username' in o && 'uuid' in o && 'is_registered' in o && !isParticipant) {
      const extra = Object.keys(o).filter((k) => !USER_KEYS.includes(k));
      if (extra.length) out.push(`${path} (user with ${extra.join(', ')})`);
    }
    for (const [k, v] of Object.entries(o)) {
      if (INTERNAL_KEYS.has(k)) out.push(`${path}.${k}`);
      if (k === 'id' && typeof v === 'number' && !isParticipant) out.push(`${path}.id (a numeric id outside a participant)`);
      internals(v, `${path}.${k}`, out);
    }
  }
  return out;
}

const LEAKY_TEXT: Array<[RegExp, string]> = [
  [/dk_[A-Za-z0-9_-]{20,}/, 'an API key'],
  [/\n\s+at\s/, 'a stack trace'],
  [/\b(SELECT|INSERT|UPDATE|DELETE)\b[^"]*\b(FROM|INTO|SET|WHERE)\b/, 'SQL'],
  [/SQLITE_|Sequelize|sequelize|node_modules|\/src\//, 'internal detail'],
  [/relation "|violates|syntax error at/, 'a database message'],
];

/** Assert that an answer carries nothing internal; answers it for chaining. */
function clean<T extends HttpResponse>(t: ExecutionContext, res: T, what = ''): T {
  t.deepEqual(internals(res.body), [], `internals in ${what || res.text.slice(0, 120)}`);
  for (const [pattern, name] of LEAKY_TEXT) t.false(pattern.test(res.text), `${name} in ${what}: ${res.text.slice(0, 300)}`);
  t.true(res.status < 500, `${what}: ${res.status} ${res.text.slice(0, 300)}`);
  return res;
}

// ---------------------------------------------------------------------------------------------
// The cast

/** The room of every test here (test/helpers/cast.ts); its creation answer must carry nothing internal. */
function cast(t: ExecutionContext, isPublic = false): Promise<Cast> {
  return seatCast(ctx.server, {
    isPublic,
    check: (created) => {
      clean(t, created);
      t.is(created.status, 201);
    },
  });
}

async function roll(t: ExecutionContext, user: NewUser, body: Record<string, unknown>): Promise<Roll> {
  const res = clean(t, await user.api.post('/roll', body), 'POST /roll');
  if (res.status !== 201) throw new Error(`roll failed: ${res.status} ${res.text}`);
  return res.body.data as Roll;
}

/** The 404 a roll that never existed gets, with its uuid swapped for `uuid`: what a hidden roll must look like. */
async function ghost404(user: NewUser, method: 'get' | 'patch', uuid: string, body?: unknown): Promise<string> {
  const ghost = randomUUID();
  const res = method === 'get' ? await user.api.get(`/roll/${ghost}`) : await user.api.patch(`/roll/${ghost}`, body);
  return JSON.stringify({ status: res.status, body: res.body }).replaceAll(ghost, uuid);
}

const asSeen = (res: HttpResponse) => JSON.stringify({ status: res.status, body: res.body });

async function history(t: ExecutionContext, user: NewUser, slug: string, query = ''): Promise<HttpResponse> {
  return clean(t, await user.api.get(`/room/${slug}/roll${query}`), `history ${query}`);
}

// ---------------------------------------------------------------------------------------------
// Whispered rolls

test('a whispered roll: its roller and recipient see it; bystander, owner and stranger get the 404 of a roll that never existed, on every roll endpoint', async (t) => {
  const c = await cast(t);
  const secret = await roll(t, c.roller, { dice: [d('d20', { value: 13 })], room: c.slug, whisper: [c.pid(c.whisperee)], label: 'secret' });
  const dieUuid = secret.values[0]!.uuid;

  // Those who may see it.
  for (const [name, u] of [
    ['roller', c.roller],
    ['whisperee', c.whisperee],
  ] as const) {
    const res = clean(t, await u.api.get(`/roll/${secret.uuid}`));
    t.is(res.status, 200, name);
    t.is(res.body.data.values[0].value, 13, `${name} sees the value`);
    t.deepEqual(
      res.body.data.participants.map((p: { user: { uuid: string } }) => p.user.uuid),
      [c.whisperee.user.uuid],
    );
  }

  // Those who may not: exactly the answer of a roll that does not exist.
  for (const [name, u] of [
    ['bystander', c.bystander],
    ['owner', c.owner],
    ['stranger', c.stranger],
  ] as const) {
    const get = clean(t, await u.api.get(`/roll/${secret.uuid}`));
    t.is(asSeen(get), await ghost404(u, 'get', secret.uuid), `GET as ${name}`);
    const patchBody = { dice: [{ uuid: dieUuid, is_hidden: true }] };
    const patch = clean(t, await u.api.patch(`/roll/${secret.uuid}`, patchBody));
    t.is(asSeen(patch), await ghost404(u, 'patch', secret.uuid, patchBody), `PATCH as ${name}: 404, not 403`);
    const bulk = clean(t, await u.api.patch('/roll', { rolls: [{ uuid: secret.uuid, dice: [{ uuid: dieUuid, is_hidden: true }] }] }));
    t.is(bulk.status, 404, `bulk PATCH as ${name}`);
    t.false(bulk.text.includes(dieUuid), 'the die uuid is not echoed');
    t.false(bulk.text.includes('secret'));
  }
  // The whisperee sees the roll, so changing it is a 403 (it knows the roll exists): still no write.
  t.is((await c.whisperee.api.patch(`/roll/${secret.uuid}`, { dice: [{ uuid: dieUuid, is_hidden: true }] })).status, 403);
  t.false((await c.roller.api.get(`/roll/${secret.uuid}`)).body.data.values[0].is_hidden, 'nobody but the roller changed it');

  // The history: the bystander and the owner page past it; the recipient and roller see it.
  const open = await roll(t, c.roller, { dice: [d('d4')], room: c.slug });
  for (const [name, u, sees] of [
    ['roller', c.roller, true],
    ['whisperee', c.whisperee, true],
    ['bystander', c.bystander, false],
    ['owner', c.owner, false],
  ] as const) {
    const page = await history(t, u, c.slug);
    t.is(page.status, 200, name);
    t.deepEqual(
      page.body.data.map((r: Roll) => r.uuid),
      sees ? [open.uuid, secret.uuid] : [open.uuid],
      name,
    );
    if (!sees) t.false(page.text.includes(secret.uuid), `${name}: the uuid is nowhere in the page`);
  }
  const strangers = await history(t, c.stranger, c.slug);
  t.is(strangers.status, 403, 'a stranger has no history of the room');
  t.false(strangers.text.includes(secret.uuid));
});

test("a roll outside any room is its roller's alone: everyone else gets the 404 of a roll that never existed", async (t) => {
  const c = await cast(t, true);
  const mine = await roll(t, c.roller, { dice: [d('d8', { value: 5 })] });
  t.is(mine.room, null);
  t.is(clean(t, await c.roller.api.get(`/roll/${mine.uuid}`)).body.data.values[0].value, 5);
  for (const u of [c.owner, c.bystander, c.stranger]) t.is(asSeen(clean(t, await u.api.get(`/roll/${mine.uuid}`))), await ghost404(u, 'get', mine.uuid));
});

// ---------------------------------------------------------------------------------------------
// Hidden dice and modifiers, on every surface

interface SeenValue {
  value: unknown;
  value_to_display: unknown;
  is_hidden: boolean;
  type: string;
  is_dropped: boolean;
}

/** The redacted fields of the roll below, exactly, for anyone but its roller. */
function assertRedacted(t: ExecutionContext, r: Roll, where: string) {
  const v = r.values as unknown as SeenValue[];
  t.deepEqual(
    v.map((x) => [x.type, x.value, x.value_to_display, x.is_hidden]),
    [
      ['d20', null, null, true],
      ['d6', 4, '4', false],
      ['mod', null, null, true],
      ['mod', 2, '2', false],
    ],
    where,
  );
  t.is(r.total_value, 6, `${where}: the total counts the d6 and the +2 only`);
  t.is(r.equation, '1d20+1d6+2', `${where}: the hidden +37 is not in the equation`);
  const shown = JSON.stringify([r.total_value, r.equation, v.map((x) => [x.value, x.value_to_display])]);
  t.false(/\b(17|37|60)\b/.test(shown), `${where}: no hidden number anywhere: ${shown}`);
}

function assertWhole(t: ExecutionContext, r: Roll, where: string) {
  const v = r.values as unknown as SeenValue[];
  t.deepEqual(
    v.map((x) => [x.type, x.value, x.value_to_display, x.is_hidden]),
    [
      ['d20', 17, '17', true],
      ['d6', 4, '4', false],
      ['mod', 37, '37', true],
      ['mod', 2, '2', false],
    ],
    where,
  );
  t.is(r.total_value, 60, where);
  t.is(r.equation, '1d20+1d6+37+2', where);
}

test('a hidden die and a hidden modifier: every answer shows others null faces, a total and an equation without them; every answer to the roller shows all', async (t) => {
  const c = await cast(t);
  const externalId = `ext-${randomUUID()}`;
  const body = {
    dice: [d('d20', { value: 17, is_hidden: true }), d('d6', { value: 4 }), { type: 'mod', value: 37, is_hidden: true }, { type: 'mod', value: 2 }],
    room: c.slug,
    external_id: externalId,
  };
  const retryKey = { headers: { 'Idempotency-Key': randomUUID() } };
  const posted = clean(t, await c.roller.api.post('/roll', body, retryKey), 'POST /roll');
  t.is(posted.status, 201);
  const created = posted.body.data as Roll;
  assertWhole(t, created, 'POST answer');

  // The roller, everywhere.
  assertWhole(t, clean(t, await c.roller.api.get(`/roll/${created.uuid}`)).body.data, 'GET as roller');
  const replay = clean(t, await c.roller.api.post('/roll', body, retryKey));
  t.is(replay.headers.get('idempotent-replayed'), 'true', 'an Idempotency-Key retry answers the roll');
  t.is(replay.body.data.uuid, created.uuid);
  assertWhole(t, replay.body.data, 'Idempotency-Key replay as roller');
  assertWhole(t, (await history(t, c.roller, c.slug)).body.data[0], 'history as roller');
  const single = clean(t, await c.roller.api.patch(`/roll/${created.uuid}`, { dice: [{ uuid: created.values[1]!.uuid, is_visible: false }] }));
  assertWhole(t, single.body.data, 'single PATCH answer');
  const bulk = clean(
    t,
    await c.roller.api.patch('/roll', { rolls: [{ uuid: created.uuid, room: c.slug, dice: [{ uuid: created.values[1]!.uuid, is_visible: true }] }] }),
  );
  assertWhole(t, bulk.body.data[0], 'bulk PATCH answer');
  const roomWide = clean(t, await c.roller.api.patch(`/room/${c.slug}/roll`, { dice: { is_cleared: true } }));
  t.deepEqual(
    roomWide.body.data.map((r: Roll) => r.uuid),
    [created.uuid],
  );
  assertWhole(t, roomWide.body.data[0], 'room-wide PATCH answer');

  // Everyone else who sees the roll: the owner, the bystander, the whisperee (not whispered here).
  for (const [name, u] of [
    ['owner', c.owner],
    ['bystander', c.bystander],
    ['whisperee', c.whisperee],
  ] as const) {
    assertRedacted(t, clean(t, await u.api.get(`/roll/${created.uuid}`)).body.data, `GET as ${name}`);
    assertRedacted(t, (await history(t, u, c.slug)).body.data[0], `history as ${name}`);
  }
});

test('a hidden die in a whispered roll stays hidden from the recipient; the roller sees it', async (t) => {
  const c = await cast(t);
  const r = await roll(t, c.roller, { dice: [d('d20', { value: 11, is_hidden: true }), d('d12', { value: 3 })], room: c.slug, whisper: [c.pid(c.whisperee)] });
  const seen = clean(t, await c.whisperee.api.get(`/roll/${r.uuid}`)).body.data as Roll;
  t.deepEqual(
    seen.values.map((v) => [v.value, v.value_to_display]),
    [
      [null, null],
      [3, '3'],
    ],
  );
  t.is(seen.total_value, 3);
  t.deepEqual(
    clean(t, await c.roller.api.get(`/roll/${r.uuid}`)).body.data.values.map((v: SeenValue) => v.value),
    [11, 3],
  );
});

test('hiding and unhiding: others see a value exactly while it is not hidden', async (t) => {
  const c = await cast(t);
  const r = await roll(t, c.roller, { dice: [d('d20', { value: 8 }), d('d6', { value: 6 })], room: c.slug });
  const seen = async () => clean(t, await c.bystander.api.get(`/roll/${r.uuid}`)).body.data as Roll;
  t.deepEqual(
    (await seen()).values.map((v) => v.value),
    [8, 6],
  );

  t.is((await c.roller.api.patch(`/roll/${r.uuid}`, { dice: [{ uuid: r.values[0]!.uuid, is_hidden: true }] })).status, 200);
  let now = await seen();
  t.deepEqual(
    now.values.map((v) => [v.value, v.value_to_display, v.is_hidden]),
    [
      [null, null, true],
      [6, '6', false],
    ],
  );
  t.is(now.total_value, 6);
  t.is(clean(t, await c.roller.api.get(`/roll/${r.uuid}`)).body.data.total_value, 14, 'the roller still sees all');

  t.is((await c.roller.api.patch(`/room/${c.slug}/roll`, { dice: { is_hidden: false } })).status, 200);
  now = await seen();
  t.deepEqual(
    now.values.map((v) => v.value),
    [8, 6],
  );
  t.is(now.total_value, 14);
});

test("a bystander's room-wide PATCH touches only its own dice and answers only its own rolls", async (t) => {
  const c = await cast(t);
  const theirs = await roll(t, c.roller, { dice: [d('d20', { value: 19, is_hidden: true })], room: c.slug });
  const own = await roll(t, c.bystander, { dice: [d('d4', { value: 2, is_hidden: true })], room: c.slug });
  const res = clean(t, await c.bystander.api.patch(`/room/${c.slug}/roll`, { dice: { is_hidden: false } }));
  t.is(res.status, 200);
  t.deepEqual(
    res.body.data.map((r: Roll) => r.uuid),
    [own.uuid],
    'only its own roll changed and came back',
  );
  t.false(res.text.includes(theirs.uuid));
  const still = clean(t, await c.bystander.api.get(`/roll/${theirs.uuid}`)).body.data as Roll;
  t.deepEqual([still.values[0]!.value, still.values[0]!.is_hidden], [null, true], "the roller's die stays hidden");
  t.is(clean(t, await c.roller.api.get(`/roll/${theirs.uuid}`)).body.data.values[0].value, 19);
  // A stranger may not use the endpoint at all.
  t.is(clean(t, await c.stranger.api.patch(`/room/${c.slug}/roll`, { dice: { is_hidden: false } })).status, 403);
});

test('operators over hidden dice: mi/ma, explosions, d100 pairs and scaling give others neither the face nor a total that contains it', async (t) => {
  const c = await cast(t);
  const sum = (r: Roll) => r.values.filter((v) => !v.is_dropped).reduce((s, v) => s + (v.value as number), 0);
  const cases: Array<{ body: Record<string, unknown>; others: (r: Roll) => void; rollerTotal: (r: Roll) => number }> = [
    // mi raises the hidden 2 to 4: the 4 is hidden too.
    {
      body: { dice: [d('d6', { value: 2, is_hidden: true }), d('d6', { value: 5 })], operator: { mi: 4 } },
      others: (r) => {
        t.deepEqual(
          r.values.map((v) => v.value),
          [null, 5],
        );
        t.is(r.total_value, 5);
      },
      rollerTotal: () => 9,
    },
    // A hidden 6 explodes: the new dice are hidden as well and count nothing for the others.
    {
      body: { dice: [d('d6', { value: 6, is_hidden: true }), d('d4', { value: 1 })], operator: { e: { '6': [0] } } },
      others: (r) => {
        t.true(r.values.length >= 3);
        t.deepEqual(
          r.values.map((v) => v.value),
          [null, 1, ...r.values.slice(2).map(() => null)],
        );
        t.true(r.values.slice(2).every((v) => v.is_hidden && v.value_to_display === null));
        t.is(r.total_value, 1);
      },
      rollerTotal: sum,
    },
    // A d100 whose tens die is hidden: the others add the units only.
    {
      body: { dice: [d('d10x', { value: 9, is_hidden: true }), d('d10', { value: 3 })] },
      others: (r) => {
        t.deepEqual(
          r.values.map((v) => v.value),
          [null, 3],
        );
        t.is(r.total_value, 3);
        t.is(r.equation, '1d100');
      },
      rollerTotal: () => 93,
    },
    // Scaling applies to what they see: ceil((hidden 7 + 5) * 3 / 2) = 18 -> ceil(5 * 3 / 2) = 8.
    {
      body: { dice: [d('d8', { value: 7, is_hidden: true }), { type: 'mod', value: 5 }], operator: { '*': 3, '/': 2, round: 'up' } },
      others: (r) => {
        t.deepEqual(
          r.values.map((v) => v.value),
          [null, 5],
        );
        t.is(r.total_value, 8);
      },
      rollerTotal: () => 18,
    },
    // A hidden modifier inside scaling leaves the equation.
    {
      body: { dice: [d('d4', { value: 3 }), { type: 'mod', value: 41, is_hidden: true }], operator: { '*': 2 } },
      others: (r) => {
        t.is(r.equation, '(1d4)*2');
        t.is(r.total_value, 6);
        t.deepEqual(
          r.values.map((v) => v.value),
          [3, null],
        );
      },
      rollerTotal: () => 88,
    },
  ];
  for (const k of cases) {
    const r = await roll(t, c.roller, { ...k.body, room: c.slug });
    t.true(
      r.values.every((v) => v.value !== null),
      'the roller sees every value',
    );
    t.is(r.total_value, k.rollerTotal(r), "the roller's total");
    const seen = clean(t, await c.bystander.api.get(`/roll/${r.uuid}`)).body.data as Roll;
    t.true(
      seen.values.every((v) => (v.value === null) === v.is_hidden && (v.value_to_display === null) === v.is_hidden),
      'null exactly for hidden dice',
    );
    k.others(seen);
  }
});

// ---------------------------------------------------------------------------------------------
// external_id

test("external_id and Idempotency-Key are per user: another user reusing them gets a roll of its own, never the first user's", async (t) => {
  const c = await cast(t);
  const externalId = `shared-${randomUUID()}`;
  const retryKey = { headers: { 'Idempotency-Key': `shared-${randomUUID()}` } };
  const firstBody = { dice: [d('d20', { value: 20, is_hidden: true })], room: c.slug, whisper: [c.pid(c.whisperee)], external_id: externalId };
  const firstRes = clean(t, await c.roller.api.post('/roll', firstBody, retryKey));
  t.is(firstRes.status, 201);
  const first = firstRes.body.data as Roll;

  for (const u of [c.bystander, c.whisperee, c.stranger]) {
    const res = clean(t, await u.api.post('/roll', { dice: [d('d6', { value: 1 })], external_id: externalId }, retryKey));
    t.is(res.status, 201, 'a new roll, not a replay');
    t.is(res.headers.get('idempotent-replayed'), null);
    t.not(res.body.data.uuid, first.uuid);
    t.is(res.body.data.user.uuid, u.user.uuid);
    t.deepEqual(
      res.body.data.values.map((v: SeenValue) => [v.type, v.value]),
      [['d6', 1]],
    );
    // Its own retry answers its own roll; the same body as the first user's is still its own key's.
    const again = clean(t, await u.api.post('/roll', { dice: [d('d6', { value: 1 })], external_id: externalId }, retryKey));
    t.is(again.status, 201);
    t.is(again.body.data.uuid, res.body.data.uuid);
    const sameBody = clean(t, await u.api.post('/roll', firstBody, retryKey));
    t.is(sameBody.body.data.code, 'idempotency_key_reused', "the first user's body under this user's key: a 422, not the first user's roll");
    // Filtering a room's history by the external_id shows only what the viewer may see.
    if (u !== c.stranger) {
      const found = clean(t, await u.api.get(`/room/${c.slug}/roll?external_id=${externalId}`));
      const seen = found.body.data.map((r: Roll) => r.uuid);
      t.deepEqual(seen, u === c.whisperee ? [first.uuid] : [], 'a whisper for someone else stays out of the filtered history');
    }
  }
  // A stranger sending the external_id with the room gets refused (not a member), not the roller's roll.
  const intoRoom = clean(t, await c.stranger.api.post('/roll', { dice: [d('d6')], room: c.slug, external_id: `other-${externalId}` }));
  t.is(intoRoom.status, 403);
  const mine = clean(t, await c.roller.api.post('/roll', firstBody, retryKey));
  t.is(mine.status, 201);
  t.is(mine.body.data.uuid, first.uuid);
  t.is(mine.body.data.values[0].value, 20, 'the roller gets its roll back whole');
});

// ---------------------------------------------------------------------------------------------
// Rooms: passcodes, guesses, removal

test('GET /room/{slug}?passcode= guesses: wrong, empty or differently cased passcodes get a 403 that tells nothing of the room', async (t) => {
  const [owner, guesser] = await Promise.all([ctx.server.newUser(), ctx.server.newUser()]);
  const created = clean(t, await owner.api.post('/room', { name: 'Hideout-name', is_public: false, passcode: 'Sesame-Open-42' }));
  const { slug } = created.body.data;
  for (const guess of ['', 'sesame-open-42', 'SESAME-OPEN-42', 'Sesame-Open-4', 'Sesame-Open-421', 'x'.repeat(200), ' Sesame-Open-42']) {
    const res = clean(t, await guesser.api.get(`/room/${slug}?passcode=${encodeURIComponent(guess)}`));
    t.is(res.status, 403, JSON.stringify(guess));
    t.is(res.body.data.code, 'forbidden');
    t.false(res.text.includes('Sesame-Open-42'), 'the passcode is not echoed');
    t.false(res.text.includes('Hideout-name'), 'nor the name');
    t.false(res.text.includes(owner.user.uuid), 'nor the owner');
    t.deepEqual(Object.keys(res.body.data).sort(), ['code', 'message']);
    const join = clean(t, await guesser.api.post(`/room/${slug}/participant`, { passcode: guess }));
    t.is(join.status, 403);
    t.false(join.text.includes('Sesame-Open-42'));
  }
  // The right passcode shows the room, but does not hand the passcode to a visitor.
  const right = clean(t, await guesser.api.get(`/room/${slug}?passcode=Sesame-Open-42`));
  t.is(right.status, 200);
  t.is(right.body.data.passcode, null);
  t.false(right.text.includes('Sesame-Open-42'));
  t.is(clean(t, await owner.api.get(`/room/${slug}`)).body.data.passcode, 'Sesame-Open-42', 'the owner sees it');
  // A room that does not exist, or was deleted, is a 404 whatever the passcode.
  t.is(clean(t, await guesser.api.get(`/room/zzzzzzzzzzzzzzzz?passcode=Sesame-Open-42`)).status, 404);
  t.is((await owner.api.delete(`/room/${slug}`)).status, 204);
  const gone = clean(t, await guesser.api.get(`/room/${slug}?passcode=Sesame-Open-42`));
  t.is(gone.status, 404);
  t.false(gone.text.includes('Hideout-name'));
});

function backgroundForm(): FormData {
  const form = new FormData();
  form.append('bg_file_path', new Blob([new Uint8Array(png())], { type: 'image/png' }), 'bg.png');
  return form;
}

test('after a passcode change, a removed participant loses every view of the room; its own old roll keeps the room without participants, background or passcode', async (t) => {
  const c = await cast(t);
  t.is((await c.owner.api.post(`/room/${c.slug}`, undefined, { raw: backgroundForm() })).status, 200);
  const own = await roll(t, c.bystander, { dice: [d('d6', { value: 2 })], room: c.slug });
  const others = await roll(t, c.owner, { dice: [d('d6', { value: 3 })], room: c.slug });
  const whispered = await roll(t, c.roller, { dice: [d('d6', { value: 4 })], room: c.slug, whisper: [c.pid(c.bystander)] });
  // Before: the bystander sees all three, and the room in its roll as a participant does.
  const before = clean(t, await c.bystander.api.get(`/roll/${own.uuid}`)).body.data;
  t.is(before.room.passcode, c.passcode);
  t.deepEqual(
    before.room.participants.map((p: { user: { uuid: string } }) => p.user.uuid),
    [c.bystander.user.uuid],
    'a roll lists the participants it involves',
  );
  t.regex(before.room.bg_file_path, /\/background\/[0-9a-f]{64}\.png$/);
  t.is((await c.bystander.api.get(`/roll/${whispered.uuid}`)).status, 200);

  const changed = clean(t, await c.owner.api.patch(`/room/${c.slug}`, { passcode: 'brand-new-code' }));
  t.is(changed.status, 200);
  // The owner uploads a new background after the change: its URL is for the new members only.
  const bg = clean(t, await c.owner.api.post(`/room/${c.slug}`, undefined, { raw: backgroundForm() }));
  t.is(bg.status, 200);
  const joinedAgain = clean(t, await c.whisperee.api.post(`/room/${c.slug}/participant`, { passcode: 'brand-new-code' }));
  t.is(joinedAgain.status, 200);

  const b = c.bystander;
  const answers: HttpResponse[] = [];
  const see = async (res: Promise<HttpResponse>, what: string) => {
    const r = clean(t, await res, what);
    answers.push(r);
    return r;
  };
  t.is((await see(b.api.get(`/room/${c.slug}`), 'GET room')).status, 403);
  t.is((await see(b.api.get(`/room/${c.slug}?passcode=${c.passcode}`), 'GET room, old passcode')).status, 403);
  t.is((await see(b.api.get(`/room/${c.slug}/roll`), 'history')).status, 403);
  t.is((await see(b.api.get(`/roll/${others.uuid}`), 'GET another roll')).status, 404);
  t.is((await see(b.api.get(`/roll/${whispered.uuid}`), 'GET a roll whispered to it')).status, 404, 'a whisper does not outlive the membership');
  t.is((await see(b.api.patch(`/room/${c.slug}/roll`, { dice: { is_hidden: true } }), 'room-wide PATCH')).status, 403);
  t.is((await see(b.api.post('/roll', { dice: [d('d6')], room: c.slug }), 'roll into the room')).status, 403);
  t.is((await see(b.api.post(`/room/${c.slug}/participant`, { passcode: c.passcode }), 'join with the old passcode')).status, 403);
  const rooms = await see(b.api.get('/room'), 'GET /room');
  t.false(
    rooms.body.data.some((r: { slug: string }) => r.slug === c.slug),
    'no longer listed',
  );

  // Its own roll: still its own (values), but the room it embeds is a private room it is no longer in.
  const after = await see(b.api.get(`/roll/${own.uuid}`), 'GET own roll');
  t.is(after.status, 200);
  t.is(after.body.data.values[0].value, 2);
  t.is(after.body.data.room.slug, c.slug);
  t.is(after.body.data.room.passcode, null, 'not the new passcode');
  t.deepEqual(after.body.data.room.participants, [], 'not who is in the room now');
  t.is(after.body.data.room.bg_file_path, null, 'not the new background URL (a key to the image)');

  for (const r of answers) {
    t.false(r.text.includes('brand-new-code'), `the new passcode in ${r.text.slice(0, 100)}`);
    t.false(r.text.includes(bg.body.data.bg_file_path), 'the new background URL');
    t.false(r.text.includes(c.whisperee.user.uuid), 'who joined since');
  }

  // The owner and the participant who came back see the room in the same roll's neighbours, with the
  // participants that roll involves (its roller, the owner).
  const owners = clean(t, await c.owner.api.get(`/roll/${others.uuid}`)).body.data;
  t.is(owners.room.passcode, 'brand-new-code');
  t.is(owners.room.bg_file_path, bg.body.data.bg_file_path);
  t.deepEqual(
    owners.room.participants.map((p: { user: { uuid: string } }) => p.user.uuid),
    [c.owner.user.uuid],
  );
  const back = clean(t, await c.whisperee.api.get(`/roll/${others.uuid}`)).body.data;
  t.is(back.room.passcode, 'brand-new-code');
  t.is(back.room.bg_file_path, bg.body.data.bg_file_path);
});

test("a public room's kept passcode is its owner's alone: a participant who joined while it was public never learns the passcode it will have when private", async (t) => {
  const [owner, early, late] = await Promise.all([ctx.server.newUser(), ctx.server.newUser(), ctx.server.newUser()]);
  const created = clean(t, await owner.api.post('/room', { name: 'Phases', is_public: false, passcode: 'private-phase' }));
  const { slug } = created.body.data;
  t.is((await early.api.post(`/room/${slug}/participant`, { passcode: 'private-phase' })).status, 200);
  t.is((await owner.api.patch(`/room/${slug}`, { is_public: true })).status, 200);

  // `late` joins the public room: nothing it is shown carries the passcode.
  const answers: HttpResponse[] = [];
  const see = async (res: Promise<HttpResponse>) => {
    const r = clean(t, await res);
    answers.push(r);
    return r;
  };
  const joined = await see(late.api.post(`/room/${slug}/participant`));
  t.is(joined.status, 200);
  t.is(joined.body.data.passcode, null);
  t.is((await see(late.api.get(`/room/${slug}`))).body.data.passcode, null);
  t.is((await see(late.api.get('/room'))).body.data.find((r: { slug: string }) => r.slug === slug).passcode, null);
  const ownRoll = await see(late.api.post('/roll', { dice: [d('d6')], room: slug }));
  t.is(ownRoll.body.data.room.passcode, null);
  t.is(
    (
      await see(
        late.api.patch(
          `/room/${slug}/participant/${joined.body.data.participants.find((p: { user: { uuid: string } }) => p.user.uuid === late.user.uuid).id}`,
          { color: '#123456' },
        ),
      )
    ).body.data.passcode,
    null,
  );
  t.is((await see(late.api.get(`/roll/${ownRoll.body.data.uuid}`))).body.data.room.passcode, null);
  t.is((await see(early.api.get(`/room/${slug}`))).body.data.passcode, null, 'while public, no participant is shown it');
  t.is(clean(t, await owner.api.get(`/room/${slug}`)).body.data.passcode, 'private-phase', 'the owner keeps seeing it');

  // The owner makes the room private again with the kept passcode: everyone but the owner is out, and
  // `late` cannot come back, since it was never told the passcode.
  t.is((await owner.api.patch(`/room/${slug}`, { is_public: false })).status, 200);
  for (const r of answers) t.false(r.text.includes('private-phase'), r.text.slice(0, 200));
  t.is(clean(t, await late.api.get(`/room/${slug}`)).status, 403);
  t.is(clean(t, await early.api.post(`/room/${slug}/participant`, { passcode: 'private-phase' })).status, 200, 'whoever was given it while private may return');
  t.is(clean(t, await early.api.get(`/room/${slug}`)).body.data.passcode, 'private-phase', 'a participant of a private room sees its passcode');
});

test('a stranger to a private room learns nothing of who is in it: changing or removing a participant id answers the same whether or not that id is there', async (t) => {
  const c = await cast(t);
  const member = c.pid(c.bystander);
  const ghostId = 2_000_000_000;
  for (const [what, call] of [
    ['PATCH', (id: number) => c.stranger.api.patch(`/room/${c.slug}/participant/${id}`, { color: '#000000' })],
    ['DELETE', (id: number) => c.stranger.api.delete(`/room/${c.slug}/participant/${id}`)],
  ] as const) {
    const present = clean(t, await call(member));
    const absent = clean(t, await call(ghostId));
    t.is(present.status, 403, what);
    t.deepEqual(
      { status: absent.status, body: absent.body },
      { status: present.status, body: present.body },
      `${what}: an id in the room and one that is not get one answer`,
    );
  }
  // Nothing changed, and those who may see the room still get the precise answers.
  const room = clean(t, await c.owner.api.get(`/room/${c.slug}`)).body.data;
  t.is(room.participants.length, 4);
  t.is(
    clean(t, await c.bystander.api.patch(`/room/${c.slug}/participant/${ghostId}`, { color: '#000000' })).status,
    404,
    'a participant is told the id is not there',
  );
  t.is(clean(t, await c.bystander.api.patch(`/room/${c.slug}/participant/${c.pid(c.roller)}`, { color: '#000000' })).status, 403);
  t.is(clean(t, await c.owner.api.delete(`/room/${c.slug}/participant/${ghostId}`)).status, 404);
  // In a public room anyone may see the participants, so the precise answer is no secret.
  const open = await cast(t, true);
  t.is(clean(t, await open.stranger.api.patch(`/room/${open.slug}/participant/${ghostId}`, { color: '#000000' })).status, 404);
  t.is(clean(t, await open.stranger.api.patch(`/room/${open.slug}/participant/${open.pid(open.bystander)}`, { color: '#000000' })).status, 403);
});

// ---------------------------------------------------------------------------------------------
// History cursors

test('history cursors: a whispered roll not for the viewer, a roll of another room and an unknown uuid all give the same empty page; walking pages never shows a hidden roll', async (t) => {
  const c = await cast(t);
  const older = await roll(t, c.roller, { dice: [d('d6')], room: c.slug });
  const secret = await roll(t, c.roller, { dice: [d('d6')], room: c.slug, whisper: [c.pid(c.whisperee)] });
  const otherRoom = clean(t, await c.bystander.api.post('/room', { name: 'Elsewhere' })).body.data.slug as string;
  const elsewhere = await roll(t, c.bystander, { dice: [d('d6')], room: otherRoom });
  const newer = await roll(t, c.roller, { dice: [d('d6')], room: c.slug });

  const empty = (await history(t, c.bystander, c.slug, `?before=${randomUUID()}`)).body;
  t.deepEqual(empty.data, []);
  t.is(empty.links.next, null);
  for (const cursor of [secret.uuid, elsewhere.uuid]) {
    const page = await history(t, c.bystander, c.slug, `?before=${cursor}`);
    t.deepEqual(page.body.data, [], `before=${cursor === secret.uuid ? 'a whisper for another' : 'a roll of another room'}`);
    t.is(page.body.links.next, null);
  }
  // Positive: the whisperee may page from the whisper it sees.
  t.deepEqual(
    (await history(t, c.whisperee, c.slug, `?before=${secret.uuid}`)).body.data.map((r: Roll) => r.uuid),
    [older.uuid],
  );

  // Walking one roll a page, by links.next: exactly the rolls the bystander may see.
  const seen: string[] = [];
  let next: string | null = `/room/${c.slug}/roll?limit=1`;
  while (next) {
    const page = await history(t, c.bystander, c.slug, next.slice(next.indexOf('?')));
    seen.push(...page.body.data.map((r: Roll) => r.uuid));
    t.false(page.text.includes(secret.uuid));
    next = page.body.links.next;
  }
  t.deepEqual(seen, [newer.uuid, older.uuid]);
});

// ---------------------------------------------------------------------------------------------
// Errors

test('error answers carry no stack, SQL or internal detail, and no 500, whatever is sent', async (t) => {
  const c = await cast(t);
  const r = await roll(t, c.roller, { dice: [d('d6')], room: c.slug });
  const u = c.stranger.api;
  const probes: Array<[string, Promise<HttpResponse>]> = [
    ['GET /roll/not-a-uuid', u.get('/roll/not-a-uuid')],
    ['GET /roll/<uuid with quote>', u.get(`/roll/${encodeURIComponent("1' OR '1'='1")}`)],
    ['GET /roll/%', u.get('/roll/%')],
    ['PATCH /roll/<uuid> junk', u.patch(`/roll/${r.uuid}`, { dice: [{ uuid: "x' --", is_hidden: 'yes' }] })],
    ['PATCH /roll junk', u.patch('/roll', { rolls: [{ uuid: 5, dice: 'all' }] })],
    ['history before junk', u.get(`/room/${c.slug}/roll?before=${encodeURIComponent("'; DROP TABLE rolls; --")}`)],
    ['history limit huge', u.get(`/room/${c.slug}/roll?limit=99999999999999999999`)],
    ['participant id overflow', u.patch(`/room/${c.slug}/participant/99999999999999999999`, { color: '#000000' })],
    ['participant id max int', c.owner.api.delete(`/room/${c.slug}/participant/2147483647`)],
    ['participant id 2^31', c.owner.api.delete(`/room/${c.slug}/participant/2147483648`)],
    ['whisper overflow', c.roller.api.post('/roll', { dice: [d('d6')], room: c.slug, whisper: [2147483648, 1e300] })],
    ['whisper negative', c.roller.api.post('/roll', { dice: [d('d6')], room: c.slug, whisper: [-1] })],
    ['room as object', u.post('/roll', { dice: [d('d6')], room: { $gt: '' } })],
    ['room slug with quote', u.get(`/room/${encodeURIComponent("a'b")}`)],
    ['room slug huge', u.get(`/room/${'a'.repeat(5000)}`)],
    ['external_id object', u.post('/roll', { dice: [d('d6')], external_id: { a: 1 } })],
    ['theme unknown', u.post('/roll', { dice: [d('d6', { theme: "x'; --" })] })],
    ['share request id junk', u.get(`/share-request/${encodeURIComponent("' OR 1=1 --")}`)],
    ['share request id uuid', u.get(`/share-request/${randomUUID()}`)],
    ['share code junk', u.get(`/share-request/code/${encodeURIComponent('%00')}`)],
    ['theme version junk', u.get('/theme/standard/version/1.0.0%27')],
    ['dice box junk', u.get(`/dice-box/${encodeURIComponent("'")}`)],
    ['malformed JSON', u.post('/roll', undefined, { raw: '{"dice": [', headers: { 'content-type': 'application/json' } })],
    ['bad key', u.get('/user', { key: 'dk_notARealKeyButLongEnough_0000000000000000' })],
  ];
  for (const [what, pending] of probes) {
    const res = await pending;
    clean(t, res, what);
    if (res.status >= 400) {
      t.is(res.body?.type, 'error', what);
      t.deepEqual(
        Object.keys(res.body.data).filter((k) => !['code', 'message', 'details'].includes(k)),
        [],
        what,
      );
    }
  }
});

// ---------------------------------------------------------------------------------------------
// Users, keys, share requests, themes

test('no answer carries an API key, a key hash or an internal id: users, rooms, rolls, themes, dice box, share requests', async (t) => {
  const c = await cast(t);
  const id = `audit-${randomUUID().slice(0, 8)}`;
  const theme = clean(t, await postTheme(c.owner.api, manifest({ id })), 'POST /theme');
  t.is(theme.status, 201, theme.text);
  const share = clean(t, await c.owner.api.post('/share-request', { theme: id, max_uses: 3 }));
  t.is(share.status, 201);
  await roll(t, c.roller, { dice: [d('d6')], room: c.slug, whisper: [c.pid(c.whisperee)] });
  const answers = [
    await c.owner.api.get('/user'),
    await c.owner.api.get('/room'),
    await c.owner.api.get(`/room/${c.slug}`),
    await c.roller.api.get(`/room/${c.slug}/roll`),
    await c.owner.api.get('/theme'),
    await c.owner.api.get(`/theme/${id}`),
    await c.owner.api.get(`/theme/${id}/version`),
    await c.owner.api.get('/dice-box'),
    await c.owner.api.get(`/dice-box/${id}`),
    await c.owner.api.get('/share-request'),
    await c.owner.api.get(`/share-request/${share.body.data.id}`),
    await c.stranger.api.get(`/share-request/code/${share.body.data.code}`),
    await c.stranger.api.post(`/share-request/code/${share.body.data.code}/accept`),
    await c.stranger.api.get('/dice-box'),
  ];
  for (const res of answers) {
    clean(t, res, res.text.slice(0, 60));
    t.true(res.status === 200, res.text.slice(0, 200));
  }
  const me = answers[0]!.body.data;
  t.deepEqual(Object.keys(me).sort(), USER_KEYS);
  t.is(me.uuid, c.owner.user.uuid);
  for (const key of [c.owner.key, c.roller.key, c.stranger.key]) for (const res of answers) t.false(res.text.includes(key));
});

test("someone else's share request is a 404 like one that never existed; its preview by code shows no id, uses or limits", async (t) => {
  const [sharer, other] = await Promise.all([ctx.server.newUser(), ctx.server.newUser()]);
  const id = `audit-${randomUUID().slice(0, 8)}`;
  t.is((await postTheme(sharer.api, manifest({ id }))).status, 201);
  const share = clean(t, await sharer.api.post('/share-request', { theme: id, max_uses: 7 }));
  const reqId = share.body.data.id as string;
  const ghost = randomUUID();
  const unknown = await other.api.get(`/share-request/${ghost}`);
  for (const [what, res] of [
    ['GET', await other.api.get(`/share-request/${reqId}`)],
    ['PATCH', await other.api.patch(`/share-request/${reqId}`, { max_uses: 1000 })],
    ['DELETE', await other.api.delete(`/share-request/${reqId}`)],
  ] as const) {
    clean(t, res, what);
    t.is(res.status, 404, what);
    t.deepEqual(res.body, JSON.parse(JSON.stringify(unknown.body).replaceAll(ghost, reqId)), `${what}: the same answer as for no request`);
  }
  t.is(clean(t, await sharer.api.get(`/share-request/${reqId}`)).body.data.max_uses, 7, 'untouched, and its owner sees the figures');
  const listed = clean(t, await other.api.get('/share-request'));
  t.deepEqual(listed.body.data, []);
  const preview = clean(t, await other.api.get(`/share-request/code/${share.body.data.code}`));
  t.is(preview.status, 200);
  t.deepEqual(Object.keys(preview.body.data).sort(), ['code', 'expires_at', 'status', 'theme', 'url', 'user']);
  t.false(preview.text.includes(reqId));
  const page = await fetch(`${ctx.server.url}/share/${share.body.data.code}`);
  const html = await page.text();
  t.is(page.status, 200);
  t.false(html.includes(reqId), 'the public page does not show the request id');
  t.false(/"?uses"?\s*[:=]/.test(html));
});

test("themes of others: not listed, not in one's dice box, not rollable; readable with a key as documented (theme ids are public names), never without one (files only at the URLs a theme answer gave)", async (t) => {
  const [maker, other] = await Promise.all([ctx.server.newUser(), ctx.server.newUser()]);
  const id = `audit-${randomUUID().slice(0, 8)}`;
  const texture = png();
  const created = await postTheme(maker.api, manifest({ id, textures: [{ binding: 'map', src: 'skin.png' }] }), [{ name: 'skin.png', data: texture }]);
  t.is(created.status, 201, created.text);
  const assetUrl = created.body.data.assets['skin.png'] as string;

  t.false(
    clean(t, await other.api.get('/theme?per_page=100')).body.data.some((th: { id: string }) => th.id === id),
    'not listed for others',
  );
  t.true(
    clean(t, await maker.api.get('/theme?per_page=100')).body.data.some((th: { id: string }) => th.id === id),
    'listed for its maker',
  );
  t.is(clean(t, await other.api.get(`/dice-box/${id}`)).status, 404);
  t.false(clean(t, await other.api.get('/dice-box')).body.data.some((th: { id: string }) => th.id === id));
  const rolled = clean(t, await other.api.post('/roll', { dice: [{ type: 'd6', theme: id }] }));
  t.is(rolled.status, 422);
  t.is(rolled.body.data.code, 'unknown_theme');
  t.is(clean(t, await maker.api.post('/roll', { dice: [{ type: 'd6', theme: id }] })).status, 201, 'its maker rolls with it');

  // Reading by id is open to any key (docs/api/themes.md), and closed without one.
  t.is(clean(t, await other.api.get(`/theme/${id}`)).status, 200);
  const withKey = await fetch(assetUrl, { headers: { authorization: `Bearer ${other.key}` } });
  t.is(withKey.status, 200);
  t.deepEqual(Buffer.from(await withKey.arrayBuffer()), texture);
  // Files: by name only with a key; without one only at the URL a theme answer gave (its content hash).
  const keyed = `${ctx.server.url}/api/1.0/theme/${id}/version/1.0.0/asset/skin.png`;
  const anonymous = await fetch(keyed);
  t.is(anonymous.status, 401);
  t.false(Buffer.from(await anonymous.arrayBuffer()).includes(texture.subarray(8, 24)));
  const guessed = await fetch(assetUrl.replace(/\/asset\/[0-9a-f]{64}\//, `/asset/${'0'.repeat(64)}/`));
  t.is(guessed.status, 404);
  t.false(Buffer.from(await guessed.arrayBuffer()).includes(texture.subarray(8, 24)));
  t.is((await fetch(assetUrl)).status, 200, 'the URL a theme answer gave needs no key');
  t.is((await fetch(`${ctx.server.url}/api/1.0/theme/${id}`)).status, 401);
  t.is((await fetch(`${ctx.server.url}/api/1.0/theme/${id}/preview`)).status, 404, 'no keyless preview without a share link');
});
