import { randomBytes } from 'node:crypto';
import test from 'ava';
import { useServer } from '../helpers/server';
import { announceSeed, assertHealthy, COUNT, runHostile, snapshotOf } from './harness';
import { hostileUpload, type Ids, type Target } from './requests';

// Users and rooms under hostile input: as a stranger to someone else's private room, and as the
// owner sending garbage to their own. Seeded: the seed is printed, HOSTILE_SEED replays a run.
const ctx = useServer(test);
announceSeed('rooms');

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

const targets: Target[] = [
  { method: 'GET', path: '/user' },
  { method: 'POST', path: '/user', body: () => ({}) },
  { method: 'GET', path: '/room', query: ['page', 'per_page'] },
  { method: 'POST', path: '/room', body: () => ({ name: 'A room', is_public: false, passcode: 'secret-1' }) },
  { method: 'GET', path: '/room/{room}', query: ['passcode'] },
  { method: 'PATCH', path: '/room/{room}', body: () => ({ name: 'Renamed' }) },
  { method: 'DELETE', path: '/room/{room}', destructive: true },
  { method: 'POST', path: '/room/{room}', upload: (rng) => hostileUpload(rng, { name: () => 'x' }, 'bg_file_path') },
  { method: 'GET', path: '/room/{room}/background/{file}' },
  { method: 'POST', path: '/room/{room}/participant', body: (ids) => ({ passcode: ids.own.passcode }), query: ['passcode'] },
  { method: 'PATCH', path: '/room/{room}/participant/{participant}', body: () => ({ username: 'Me', color: '#123456' }) },
  { method: 'DELETE', path: '/room/{room}/participant/{participant}', destructive: true },
];

async function privateRoomWithFriend() {
  const owner = await ctx.server.newUser();
  const friend = await ctx.server.newUser();
  const passcode = `pass-${randomBytes(6).toString('hex')}`;
  const room = (await owner.api.post('/room', { name: 'Private', is_public: false, passcode })).body.data;
  const form = new FormData();
  form.append('bg_file_path', new Blob([PNG], { type: 'image/png' }), 'bg.png');
  const withBg = await owner.api.post(`/room/${room.slug}`, undefined, { raw: form });
  const joined = (await friend.api.post(`/room/${room.slug}/participant`, { passcode })).body.data;
  const mine = joined.participants.find((p: { user: { uuid: string } }) => p.user.uuid === owner.user.uuid);
  const theirs = joined.participants.find((p: { user: { uuid: string } }) => p.user.uuid === friend.user.uuid);
  const file =
    String(withBg.body?.data?.bg_file_path ?? '')
      .split('/')
      .pop() ?? '';
  return { owner, friend, passcode, slug: room.slug as string, ownerParticipant: String(mine.id), friendParticipant: String(theirs.id), file };
}

function stateOf(world: Awaited<ReturnType<typeof privateRoomWithFriend>>) {
  return snapshotOf([
    { api: world.owner.api, path: '/user' },
    { api: world.owner.api, path: '/room' },
    { api: world.owner.api, path: `/room/${world.slug}` },
    { api: world.friend.api, path: '/room' },
  ]);
}

// Fresh worlds per chunk: an owner's successful writes (a new passcode, a removed friend) change
// what later requests can reach, so each chunk starts from a known state.
for (let chunk = 1; chunk <= 3; chunk++) {
  test.serial(`a stranger gets nowhere with someone else's private room, and changes nothing (${chunk}/3)`, async (t) => {
    const victim = await privateRoomWithFriend();
    const attacker = await privateRoomWithFriend();
    const ids: Ids = {
      own: { room: attacker.slug, participant: attacker.ownerParticipant, file: attacker.file, passcode: attacker.passcode },
      others: { room: [victim.slug], participant: [victim.ownerParticipant, victim.friendParticipant], file: [victim.file] },
    };
    await runHostile({
      t,
      base: ctx.server.url,
      targets,
      ids,
      key: attacker.owner.key,
      mode: 'others',
      snapshot: stateOf(victim),
      label: `rooms as a stranger ${chunk}`,
    });
    await assertHealthy(t, ctx.server.url, victim.owner.api);
  });
}

for (let chunk = 1; chunk <= 4; chunk++) {
  test.serial(`an owner sending garbage about their own room: refused requests change nothing (${chunk}/4)`, async (t) => {
    const me = await privateRoomWithFriend();
    const other = await privateRoomWithFriend();
    const ids: Ids = {
      own: { room: me.slug, participant: me.ownerParticipant, file: me.file, passcode: me.passcode },
      others: { room: [other.slug], participant: [other.ownerParticipant, other.friendParticipant, me.friendParticipant], file: [other.file] },
    };
    const both = snapshotOf([
      { api: me.owner.api, path: `/room/${me.slug}` },
      { api: me.owner.api, path: '/room' },
      { api: other.owner.api, path: `/room/${other.slug}` },
    ]);
    await runHostile({
      t,
      base: ctx.server.url,
      targets,
      ids,
      key: me.owner.key,
      mode: 'own',
      snapshot: both,
      label: `rooms as the owner ${chunk}`,
      count: Math.ceil(COUNT / 2),
    });
    await assertHealthy(t, ctx.server.url, me.owner.api);
  });
}
