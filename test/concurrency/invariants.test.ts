import test from 'ava';
import { useServer } from '../helpers/server';
import { manifest, postTheme, themeId } from '../fixtures/themes';

// Invariants under simultaneous requests, on SQLite (writers serialized in-process) and PostgreSQL
// (real concurrency). 200 simultaneous joins are test/api/participants.concurrency.test.ts; two-racer
// accepts and version races are in the themes and share-request tests: these go wider.
const ctx = useServer(test);

test('a link with 5 uses accepted by 30 users at once: exactly 5 get the theme, the count is 5', async (t) => {
  const owner = await ctx.server.newUser();
  const id = themeId('share');
  t.is((await postTheme(owner.api, manifest({ id }))).status, 201);
  const link = await owner.api.post('/share-request', { theme: id, max_uses: 5 });
  t.is(link.status, 201, link.text);
  const users = await Promise.all(Array.from({ length: 30 }, () => ctx.server.newUser()));
  const answers = await Promise.all(users.map((u) => u.api.post(`/share-request/code/${link.body.data.code}/accept`)));
  const statuses = answers.map((a) => a.status);
  t.is(statuses.filter((s) => s === 200).length, 5, statuses.join(','));
  t.is(statuses.filter((s) => s === 410).length, 25, statuses.join(','));
  const after = await owner.api.get(`/share-request/${link.body.data.id}`);
  t.is(after.body.data.uses, 5);
  t.is(after.body.data.status, 'used_up');
  for (const [i, u] of users.entries()) {
    const box = await u.api.get(`/dice-box/${id}`);
    t.is(box.status, statuses[i] === 200 ? 200 : 404, `user ${i}: in the box exactly when the accept succeeded`);
  }
});

test('versions published while 10 boxes upgrade at once: every box ends on a real version, and a last upgrade gives the latest', async (t) => {
  const owner = await ctx.server.newUser();
  const id = themeId('upg');
  t.is((await postTheme(owner.api, manifest({ id, version: '1.0.0' }))).status, 201);
  const link = (await owner.api.post('/share-request', { theme: id })).body.data;
  const users = await Promise.all(Array.from({ length: 10 }, () => ctx.server.newUser()));
  for (const u of users) t.is((await u.api.post(`/share-request/code/${link.code}/accept`)).status, 200);

  // Ascending versions published one after another, racing 3 rounds of upgrades by every user.
  const publishing = (async () => {
    const out: number[] = [];
    for (let v = 1; v <= 6; v++) out.push((await postTheme(owner.api, manifest({ id, version: `1.${v}.0` }))).status);
    return out;
  })();
  const upgrades = await Promise.all(users.flatMap((u) => [0, 1, 2].map(() => u.api.patch(`/dice-box/${id}`))));
  t.deepEqual(await publishing, [201, 201, 201, 201, 201, 201]);
  t.true(
    upgrades.every((r) => r.status === 200),
    upgrades.map((r) => r.status).join(','),
  );

  const versions = new Set(((await owner.api.get(`/theme/${id}/version?per_page=100`)).body.data as { version: string }[]).map((v) => v.version));
  t.is(versions.size, 7);
  for (const u of users) {
    const pinned = (await u.api.get(`/dice-box/${id}`)).body.data.version as string;
    t.true(versions.has(pinned), `pinned to ${pinned}, a version that exists`);
    t.is((await u.api.patch(`/dice-box/${id}`)).body.data.version, '1.6.0', 'an upgrade after the dust settles reaches the latest');
  }
});

test('10 simultaneous PATCHes, each hiding a different die of one roll: no update is lost', async (t) => {
  const { api } = await ctx.server.newUser();
  const roll = await api.post('/roll', { dice: Array.from({ length: 10 }, () => ({ type: 'd6', theme: 'standard' })) });
  t.is(roll.status, 201, roll.text);
  const values = roll.body.data.values as { uuid: string }[];
  const answers = await Promise.all(values.map((v) => api.patch(`/roll/${roll.body.data.uuid}`, { dice: [{ uuid: v.uuid, is_hidden: true }] })));
  t.true(
    answers.every((a) => a.status === 200),
    answers.map((a) => `${a.status}`).join(','),
  );
  const after = await api.get(`/roll/${roll.body.data.uuid}`);
  t.deepEqual(
    after.body.data.values.map((v: { is_hidden: boolean }) => v.is_hidden),
    Array(10).fill(true),
  );
});

test("a participant's name and colour changed at the same moment: both stick (10 rounds)", async (t) => {
  const owner = await ctx.server.newUser();
  const room = (await owner.api.post('/room', { name: 'Table', is_public: true })).body.data;
  const me = room.participants[0];
  for (let round = 0; round < 10; round++) {
    const username = `Name ${round}`;
    const color = `#${String(round).repeat(6)}`;
    const [a, b] = await Promise.all([
      owner.api.patch(`/room/${room.slug}/participant/${me.id}`, { username }),
      owner.api.patch(`/room/${room.slug}/participant/${me.id}`, { color }),
    ]);
    t.is(a.status, 200, a.text);
    t.is(b.status, 200, b.text);
    const now = (await owner.api.get(`/room/${room.slug}`)).body.data.participants.find((p: { id: number }) => p.id === me.id);
    t.is(now.username, username, `round ${round}`);
    t.is(now.color, color, `round ${round}`);
  }
});

test('a room renamed while its visibility changes: both stick (10 rounds)', async (t) => {
  const owner = await ctx.server.newUser();
  const slug = (await owner.api.post('/room', { name: 'Start', is_public: true })).body.data.slug;
  for (let round = 0; round < 10; round++) {
    const name = `Room ${round}`;
    const isPublic = round % 2 === 1;
    const [a, b] = await Promise.all([owner.api.patch(`/room/${slug}`, { name }), owner.api.patch(`/room/${slug}`, { is_public: isPublic })]);
    t.is(a.status, 200, a.text);
    t.is(b.status, 200, b.text);
    const now = (await owner.api.get(`/room/${slug}`)).body.data;
    t.is(now.name, name, `round ${round}`);
    t.is(now.is_public, isPublic, `round ${round}`);
  }
});

test("a share link's expiry and its use limit changed at the same moment: both stick (10 rounds)", async (t) => {
  const owner = await ctx.server.newUser();
  const id = themeId('both');
  t.is((await postTheme(owner.api, manifest({ id }))).status, 201);
  const link = (await owner.api.post('/share-request', { theme: id })).body.data;
  for (let round = 0; round < 10; round++) {
    const expires = new Date(Date.UTC(2031 + round, 0, 1)).toISOString();
    const [a, b] = await Promise.all([
      owner.api.patch(`/share-request/${link.id}`, { expires_at: expires }),
      owner.api.patch(`/share-request/${link.id}`, { max_uses: 100 + round }),
    ]);
    t.is(a.status, 200, a.text);
    t.is(b.status, 200, b.text);
    const now = (await owner.api.get(`/share-request/${link.id}`)).body.data;
    t.is(Date.parse(now.expires_at), Date.parse(expires), `round ${round}`);
    t.is(now.max_uses, 100 + round, `round ${round}`);
  }
});
