import test from 'ava';
import { useServer } from '../helpers/server';
import { userWithRoom, type NewUser } from '../rooms/support';

const ctx = useServer(test);
const JOINERS = 200;

async function users(n: number): Promise<NewUser[]> {
  const out: NewUser[] = [];
  // In batches: guest creation is not what this file tests.
  for (let i = 0; i < n; i += 25) out.push(...(await Promise.all(Array.from({ length: Math.min(25, n - i) }, () => ctx.server.newUser()))));
  return out;
}

test(`${JOINERS} simultaneous joins of one room give ${JOINERS} distinct seats and colours`, async (t) => {
  const { owner, room, slug } = await userWithRoom(ctx.server, { is_public: false });
  const joiners = await users(JOINERS);
  const responses = await Promise.all(joiners.map((u) => u.api.post(`/room/${slug}/participant`, { passcode: room.passcode })));
  const statuses = new Map<number, number>();
  for (const r of responses) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
  t.deepEqual([...statuses], [[200, JOINERS]], JSON.stringify(responses.find((r) => r.status !== 200)?.body));

  const final = (await owner.api.get(`/room/${slug}`)).body.data;
  const participants: { position: number; color: string; user: { uuid: string } }[] = final.participants;
  t.is(participants.length, JOINERS + 1);
  const positions = participants.map((p) => p.position);
  t.deepEqual(
    positions,
    Array.from({ length: JOINERS + 1 }, (_, i) => i + 1),
    'seats 1..n, no gap, no duplicate',
  );
  t.is(new Set(participants.map((p) => p.color)).size, JOINERS + 1, 'every default colour is different');
  t.is(new Set(participants.map((p) => p.user.uuid)).size, JOINERS + 1);
  // Each answer showed its own seat: the position it was given is the one that stayed.
  for (const [i, r] of responses.entries()) {
    const seat = r.body.data.participants.find((p: { user: { uuid: string } }) => p.user.uuid === joiners[i]!.user.uuid);
    t.is(seat.position, participants.find((p) => p.user.uuid === joiners[i]!.user.uuid)!.position);
  }
});

test('the same user joining many times at once gets in exactly once; the rest are 409', async (t) => {
  const { slug } = await userWithRoom(ctx.server);
  const [u] = await users(1);
  const responses = await Promise.all(Array.from({ length: 20 }, () => u!.api.post(`/room/${slug}/participant`)));
  t.is(responses.filter((r) => r.status === 200).length, 1);
  t.is(responses.filter((r) => r.status === 409).length, 19);
  for (const r of responses.filter((x) => x.status === 409)) t.is(r.body.data.code, 'already_participant');
  const room = (await u!.api.get(`/room/${slug}`)).body.data;
  t.is(room.participants.length, 2);
});

test('joins racing with leaves and a passcode change never share a seat', async (t) => {
  const { owner, room, slug } = await userWithRoom(ctx.server, { is_public: false });
  const first = await users(30);
  const joined = await Promise.all(first.map((u) => u.api.post(`/room/${slug}/participant`, { passcode: room.passcode })));
  t.true(joined.every((r) => r.status === 200));
  const seats = (await owner.api.get(`/room/${slug}`)).body.data.participants as { id: number; user: { uuid: string } }[];
  const leavers = first.slice(0, 15);
  const second = await users(30);
  const results = await Promise.all([
    ...leavers.map((u) => u.api.delete(`/room/${slug}/participant/${seats.find((p) => p.user.uuid === u.user.uuid)!.id}`)),
    ...second.map((u) => u.api.post(`/room/${slug}/participant`, { passcode: room.passcode })),
  ]);
  t.true(results.slice(0, 15).every((r) => r.status === 204));
  t.true(results.slice(15).every((r) => r.status === 200));
  const after = (await owner.api.get(`/room/${slug}`)).body.data.participants as { position: number; color: string }[];
  t.is(after.length, 1 + 30 - 15 + 30);
  t.is(new Set(after.map((p) => p.position)).size, after.length);
  t.is(new Set(after.map((p) => p.color)).size, after.length);

  // A passcode change racing with joins: every join either lands before (and is then removed) or is refused.
  const third = await users(20);
  const race = await Promise.all([
    owner.api.patch(`/room/${slug}`, { passcode: 'rotated-code' }),
    ...third.map((u) => u.api.post(`/room/${slug}/participant`, { passcode: room.passcode })),
  ]);
  t.is(race[0]!.status, 200);
  t.true(race.slice(1).every((r) => r.status === 200 || r.status === 403));
  const final = (await owner.api.get(`/room/${slug}`)).body.data;
  t.is(final.passcode, 'rotated-code');
  t.is(final.participants.length, 1, 'nobody admitted by the old passcode is left after the change');
});
