import test from 'ava';
import { AppContext, hostSeveralApps } from '../../src/lib/appContext';
import { db } from '../../src/db';
import { currentQuotas } from '../../src/users/quotas';
import { recordEvents } from '../fixtures/events';
import { Api } from '../helpers/http';
import { startTestServer, type TestServer } from '../helpers/server';

// Several servers in one process, each with its own database, caches, quotas and event listeners
// (src/lib/appContext.ts): what lets test files share a process. Each server's SQLite database numbers
// its rows from 1, so anything keyed by id and shared between them would show here.
hostSeveralApps();

let a: TestServer;
let b: TestServer;
test.before(async () => {
  [a, b] = await Promise.all([startTestServer({ ROOMS_PER_USER: '1' }, new AppContext()), startTestServer({ ROOMS_PER_USER: '3' }, new AppContext())]);
});
test.after.always(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});

test('each server answers from its own database: a key made on one is unknown to the other', async (t) => {
  const onA = await a.newUser();
  t.is((await onA.api.get('/user')).status, 200);
  const sameKeyOnB = await new Api(b.url, onA.key).get('/user');
  t.is(sameKeyOnB.status, 401);
  t.not(
    a.within(() => db()),
    b.within(() => db()),
  );
});

test('each server keeps its own quotas and its own caches of rooms and keys', async (t) => {
  t.is(
    a.within(() => currentQuotas().roomsOwned),
    1,
  );
  t.is(
    b.within(() => currentQuotas().roomsOwned),
    3,
  );
  const onA = await a.newUser();
  const onB = await b.newUser();
  t.is((await onA.api.post('/room', { name: 'A' })).status, 201);
  t.is((await onA.api.post('/room', { name: 'A2' })).status, 409, 'ROOMS_PER_USER=1 on A');
  const roomsOnB = [];
  for (const name of ['B1', 'B2', 'B3']) {
    const made = await onB.api.post('/room', { name });
    t.is(made.status, 201, 'ROOMS_PER_USER=3 on B');
    roomsOnB.push(made.body.data);
  }
  // Rooms with the same row ids on both (each database's first rooms): each server reads its own.
  for (const room of roomsOnB) t.is((await onB.api.get(`/room/${room.slug}`)).body.data.name, room.name);
  t.is((await onA.api.get(`/room/${roomsOnB[0].slug}`)).status, 404);
});

test("a server's domain events reach its own listeners only", async (t) => {
  const onA = a.within(() => recordEvents());
  const onB = b.within(() => recordEvents());
  const roller = await b.newUser();
  const room = (await roller.api.post('/room', { name: 'Events' })).body.data;
  t.is((await roller.api.post('/roll', { dice: [{ type: 'd6', theme: 'standard' }], room: room.slug })).status, 201);
  t.true(
    onB.for(room.slug).some((e) => e.type === 'roll.created'),
    'B heard its roll',
  );
  t.deepEqual(onA.for(room.slug), [], 'A heard nothing of it');
  onA.stop();
  onB.stop();
});

test('a server stopped leaves the other running', async (t) => {
  const spare = await startTestServer({}, new AppContext());
  const user = await b.newUser();
  await spare.stop();
  t.is((await user.api.get('/user')).status, 200);
  t.is((await (await b.newUser()).api.post('/room', {})).status, 201);
});
