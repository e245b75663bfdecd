import { randomBytes } from 'node:crypto';
import test from 'ava';
import { manifest, postTheme, themeId } from '../fixtures/themes';
import { useServer } from '../helpers/server';
import { announceSeed, assertHealthy, COUNT, runHostile, snapshotOf } from './harness';
import type { Rng } from './prng';
import { hostileUpload, mutateValue, type Ids, type Target } from './requests';
import { TRAVERSAL } from './values';

// Rolls, themes (multipart uploads with hostile manifests and files), the dice box and share
// requests under hostile input, as a stranger and as the owner. Seeded: HOSTILE_SEED replays a run.
const ctx = useServer(test);
announceSeed('content');

/** A hostile theme form: a mutated manifest (often naming files by traversal paths) and hostile files. */
function themeUpload(rng: Rng, ids: Ids): FormData {
  const base = manifest({ id: rng.chance(0.5) ? ids.own.theme : themeId('h'), version: `${rng.int(0, 99)}.${rng.int(0, 99)}.${rng.int(0, 99)}` });
  if (rng.chance(0.4)) base.meshes = { d6: rng.pick(TRAVERSAL) };
  if (rng.chance(0.3)) base.textures = [{ binding: 'map', src: rng.pick(TRAVERSAL) }];
  if (rng.chance(0.3)) base.extend = rng.pick([...(ids.others.theme ?? []), 'standard', rng.pick(TRAVERSAL)]);
  const what: string[] = [];
  const m = rng.chance(0.7) ? mutateValue(rng, base, Object.values(ids.others).flat(), what) : base;
  return hostileUpload(
    rng,
    { manifest: () => JSON.stringify(m) ?? 'null', frag_shader: () => 'void main(){}', vert_shader: () => 'x'.repeat(300_000) },
    rng.pick(['assets', 'assets[]']),
  );
}

const targets: Target[] = [
  {
    method: 'POST',
    path: '/roll',
    body: (ids) => ({
      dice: [
        { type: 'd20', theme: 'standard' },
        { type: 'mod', value: 3 },
      ],
      room: ids.own.room,
      label: 'x',
      whisper: [Number(ids.own.participant)],
    }),
  },
  { method: 'POST', path: '/roll', body: () => ({ equation: '4d6kh3+2', theme: 'standard' }) },
  { method: 'GET', path: '/roll/{roll}' },
  { method: 'PATCH', path: '/roll/{roll}', body: (ids) => ({ dice: [{ uuid: ids.own.value, is_hidden: true }] }) },
  { method: 'PATCH', path: '/roll', body: (ids) => ({ rolls: [{ uuid: ids.own.roll, dice: [{ uuid: ids.own.value, is_visible: false }] }] }) },
  { method: 'PATCH', path: '/room/{room}/roll', body: () => ({ dice: { is_cleared: true } }) },
  { method: 'DELETE', path: '/roll', query: ['room'] },
  { method: 'GET', path: '/room/{room}/roll', query: ['limit', 'before'] },
  { method: 'GET', path: '/theme', query: ['page', 'per_page'] },
  { method: 'POST', path: '/theme', upload: themeUpload },
  { method: 'GET', path: '/theme/{theme}' },
  { method: 'DELETE', path: '/theme/{theme}', destructive: true },
  { method: 'GET', path: '/theme/{theme}/version' },
  { method: 'GET', path: '/theme/{theme}/version/{version}' },
  { method: 'GET', path: '/theme/{theme}/version/{version}/asset/{asset}' },
  { method: 'GET', path: '/dice-box', query: ['filter', 'ids', 'page', 'per_page'] },
  { method: 'GET', path: '/dice-box/{theme}' },
  { method: 'PATCH', path: '/dice-box/{theme}' },
  { method: 'DELETE', path: '/dice-box/{theme}', destructive: true },
  { method: 'POST', path: '/share-request', body: (ids) => ({ theme: ids.own.theme, max_uses: 3, expires_at: '2031-01-01T00:00:00Z' }) },
  { method: 'GET', path: '/share-request', query: ['page', 'per_page'] },
  { method: 'GET', path: '/share-request/{share}' },
  { method: 'PATCH', path: '/share-request/{share}', body: () => ({ max_uses: 10 }) },
  { method: 'DELETE', path: '/share-request/{share}', destructive: true },
  { method: 'GET', path: '/share-request/code/{code}' },
  { method: 'POST', path: '/share-request/code/{code}/accept' },
];

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

/** A user with a private room (and a friend in it), a roll there, a theme with a texture, a share link. */
async function world() {
  const owner = await ctx.server.newUser();
  const friend = await ctx.server.newUser();
  const passcode = `pass-${randomBytes(6).toString('hex')}`;
  const room = (await owner.api.post('/room', { name: 'Private', is_public: false, passcode })).body.data;
  const joined = (await friend.api.post(`/room/${room.slug}/participant`, { passcode })).body.data;
  const mine = joined.participants.find((p: { user: { uuid: string } }) => p.user.uuid === owner.user.uuid);
  const theirs = joined.participants.find((p: { user: { uuid: string } }) => p.user.uuid === friend.user.uuid);
  const roll = (
    await owner.api.post('/roll', {
      dice: [
        { type: 'd20', theme: 'standard' },
        { type: 'd6', theme: 'standard', is_hidden: true },
      ],
      room: room.slug,
    })
  ).body.data;
  const theme = themeId('w');
  const published = await postTheme(owner.api, manifest({ id: theme, textures: [{ binding: 'map', src: 'skin.png' }] }), [
    { name: 'skin.png', data: PNG, type: 'image/png' },
  ]);
  if (published.status !== 201) throw new Error(`theme: ${published.status} ${published.text}`);
  const share = (await owner.api.post('/share-request', { theme, max_uses: 3 })).body.data;
  return {
    owner,
    friend,
    slug: room.slug as string,
    passcode,
    ownerParticipant: String(mine.id),
    friendParticipant: String(theirs.id),
    roll: roll.uuid as string,
    value: roll.values[0].uuid as string,
    theme,
    share: share.id as string,
    code: share.code as string,
  };
}
type World = Awaited<ReturnType<typeof world>>;

/** Path values of a world as its owner knows them. `code` is a capability: only its owner holds it. */
function own(w: World): Record<string, string> {
  return {
    room: w.slug,
    participant: w.ownerParticipant,
    roll: w.roll,
    value: w.value,
    theme: w.theme,
    version: '1.0.0',
    asset: 'skin.png',
    share: w.share,
    code: w.code,
    passcode: w.passcode,
  };
}
/** What a stranger may know of a world: every id, but not the share code. */
function seenFromOutside(w: World): Record<string, string[]> {
  return {
    room: [w.slug],
    participant: [w.ownerParticipant, w.friendParticipant],
    roll: [w.roll],
    value: [w.value],
    theme: [w.theme],
    share: [w.share],
    version: ['1.0.0'],
    asset: ['skin.png', ...TRAVERSAL.slice(0, 3)],
  };
}

function stateOf(w: World) {
  return snapshotOf([
    { api: w.owner.api, path: '/theme' },
    { api: w.owner.api, path: `/theme/${w.theme}/version` },
    { api: w.owner.api, path: '/dice-box' },
    { api: w.owner.api, path: '/share-request' },
    { api: w.owner.api, path: `/roll/${w.roll}` },
    { api: w.owner.api, path: `/room/${w.slug}/roll` },
    { api: w.friend.api, path: `/roll/${w.roll}` },
    { api: w.friend.api, path: '/dice-box' },
  ]);
}

for (let chunk = 1; chunk <= 2; chunk++) {
  test.serial(`a stranger gets nowhere with someone else's rolls, themes, box and links (${chunk}/2)`, async (t) => {
    const victim = await world();
    const attacker = await world();
    const ids: Ids = { own: own(attacker), others: seenFromOutside(victim) };
    await runHostile({
      t,
      base: ctx.server.url,
      targets,
      ids,
      key: attacker.owner.key,
      mode: 'others',
      snapshot: stateOf(victim),
      label: `content as a stranger ${chunk}`,
    });
    await assertHealthy(t, ctx.server.url, victim.owner.api);
  });
}

for (let chunk = 1; chunk <= 4; chunk++) {
  test.serial(`an owner sending garbage about their own rolls, themes, box and links: refused requests change nothing (${chunk}/4)`, async (t) => {
    const me = await world();
    const other = await world();
    const ids: Ids = { own: own(me), others: seenFromOutside(other) };
    const both = async () => `${await stateOf(me)()}\n${await stateOf(other)()}`;
    await runHostile({
      t,
      base: ctx.server.url,
      targets,
      ids,
      key: me.owner.key,
      mode: 'own',
      snapshot: both,
      label: `content as the owner ${chunk}`,
      count: Math.ceil(COUNT / 4),
    });
    await assertHealthy(t, ctx.server.url, me.owner.api);
  });
}
