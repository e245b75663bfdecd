import test, { type ExecutionContext } from 'ava';
import { png } from '../fixtures/assets';
import { manifest, postTheme, themeId } from '../fixtures/themes';
import type { HttpResponse } from '../helpers/http';
import { useServer, type TestServer } from '../helpers/server';
import { fileForm, PNG } from '../rooms/support';

// Per-user quotas, with small limits set from the environment as an operator would.
// Parallel creates at the boundary are test/concurrency/quotas.test.ts.
const KIB = 1024;
const ctx = useServer(test, {
  ROOMS_PER_USER: '3',
  ROOMS_JOINED_PER_USER: '2',
  THEMES_PER_USER: '2',
  VERSIONS_PER_THEME: '3',
  ASSET_BYTES_PER_USER: '20kb',
  SHARE_REQUESTS_PER_USER: '2',
});

type User = Awaited<ReturnType<TestServer['newUser']>>;

/** A 409 quota_exceeded in the project's error body, whose message names the variable and the limit. */
function quotaRefused(t: ExecutionContext, res: HttpResponse, variable: string, limit: number, freeing: RegExp) {
  t.is(res.status, 409, res.text);
  t.is(res.body.type, 'error');
  t.is(res.body.data.code, 'quota_exceeded');
  const message: string = res.body.data.message;
  t.true(message.includes(`(${variable})`), message);
  t.true(message.includes(String(limit)), message);
  t.regex(message, freeing);
}

async function newRoom(user: User, body: Record<string, unknown> = {}): Promise<string> {
  const res = await user.api.post('/room', body);
  if (res.status !== 201) throw new Error(`room creation failed: ${res.status} ${res.text}`);
  return res.body.data.slug as string;
}

/** A PNG padded to `bytes` (the sniffers read the magic bytes only). */
function pngOf(bytes: number): Buffer {
  const head = png();
  return Buffer.concat([head, Buffer.alloc(bytes - head.length)]);
}

function textured(id: string, file: string, extra: Record<string, unknown> = {}) {
  return manifest({ id, textures: [{ binding: 'map', src: file }], ...extra });
}

test('rooms owned: the 4th room is a 409 naming ROOMS_PER_USER; deleting one makes room; others are unaffected', async (t) => {
  const me = await ctx.server.newUser();
  const slugs = [await newRoom(me), await newRoom(me), await newRoom(me)];
  const refused = await me.api.post('/room', { name: 'One too many' });
  quotaRefused(t, refused, 'ROOMS_PER_USER', 3, /You own 3 rooms.*delete one to create another/);
  t.is(refused.body.data.message, 'You own 3 rooms, and 3 is the most allowed (ROOMS_PER_USER): delete one to create another.');
  t.is((await me.api.get('/room')).body.meta.total, 3, 'nothing was stored');

  const other = await ctx.server.newUser();
  t.is((await other.api.post('/room', {})).status, 201, 'a quota is per user');

  t.is((await me.api.delete(`/room/${slugs[0]}`)).status, 204);
  t.is((await me.api.post('/room', {})).status, 201, 'a deleted room frees its slot');
  t.is((await me.api.post('/room', {})).status, 409);
});

test('rooms joined: the 3rd room of others is a 409 naming ROOMS_JOINED_PER_USER; own rooms do not count; leaving makes room', async (t) => {
  const owners = await Promise.all([1, 2, 3].map(() => ctx.server.newUser()));
  const rooms = await Promise.all(owners.map((o) => newRoom(o)));
  const me = await ctx.server.newUser();
  const mine = await newRoom(me);
  t.is((await me.api.post(`/room/${rooms[0]}/participant`)).status, 200);
  const second = await me.api.post(`/room/${rooms[1]}/participant`);
  t.is(second.status, 200);
  const refused = await me.api.post(`/room/${rooms[2]}/participant`);
  quotaRefused(t, refused, 'ROOMS_JOINED_PER_USER', 2, /participant of 2 rooms of others.*leave one/);
  t.is((await owners[2]!.api.get(`/room/${rooms[2]}`)).body.data.participants.length, 1, 'not joined');

  // The owner's own rooms have their own quota: creating one and leaving and rejoining it still work.
  t.is((await me.api.post('/room', {})).status, 201);
  const self = (await me.api.get(`/room/${mine}`)).body.data.participants.find((p: { user: { uuid: string } }) => p.user.uuid === me.user.uuid);
  t.is((await me.api.delete(`/room/${mine}/participant/${self.id}`)).status, 204);
  t.is((await me.api.post(`/room/${mine}/participant`)).status, 200, 'an owner may always come back');

  // Leaving a room of others frees a slot.
  const seat = second.body.data.participants.find((p: { user: { uuid: string } }) => p.user.uuid === me.user.uuid);
  t.is((await me.api.delete(`/room/${rooms[1]}/participant/${seat.id}`)).status, 204);
  t.is((await me.api.post(`/room/${rooms[2]}/participant`)).status, 200);
  // A room its owner deletes no longer counts.
  t.is((await owners[0]!.api.delete(`/room/${rooms[0]}`)).status, 204);
  t.is((await me.api.post(`/room/${rooms[1]}/participant`)).status, 200);
});

test('themes owned: a 3rd theme id is a 409 naming THEMES_PER_USER, new versions of owned ones still go; deleting one makes room', async (t) => {
  const me = await ctx.server.newUser();
  const [a, b, c] = [themeId('qa'), themeId('qb'), themeId('qc')];
  t.is((await postTheme(me.api, manifest({ id: a }))).status, 201);
  t.is((await postTheme(me.api, manifest({ id: b }))).status, 201);
  const refused = await postTheme(me.api, manifest({ id: c }));
  quotaRefused(t, refused, 'THEMES_PER_USER', 2, /You own 2 themes.*delete one/);
  t.is((await me.api.get(`/theme/${c}`)).status, 404, 'nothing was stored');
  t.is((await postTheme(me.api, manifest({ id: a, version: '1.1.0' }))).status, 201, 'a new version of an owned theme is no new theme');
  t.is((await me.api.delete(`/theme/${b}`)).status, 204);
  t.is((await postTheme(me.api, manifest({ id: c }))).status, 201);
});

test('versions per theme: a 4th version is a 409 naming VERSIONS_PER_THEME', async (t) => {
  const me = await ctx.server.newUser();
  const id = themeId('qv');
  for (const version of ['1.0.0', '1.1.0', '1.2.0']) t.is((await postTheme(me.api, manifest({ id, version }))).status, 201);
  const refused = await postTheme(me.api, manifest({ id, version: '2.0.0' }));
  quotaRefused(t, refused, 'VERSIONS_PER_THEME', 3, new RegExp(`"${id}" has 3 versions.*new theme id`));
  t.is((await me.api.get(`/theme/${id}`)).body.data.version, '1.2.0');
  t.is((await me.api.get(`/theme/${id}/version`)).body.meta.total, 3);
  // An outdated version is still a version conflict: the quota does not hide a more useful answer.
  t.is((await postTheme(me.api, manifest({ id, version: '1.0.0' }))).body.data.code, 'version_conflict');
});

test('asset bytes: theme files and room backgrounds count together, inherited files too; deleting frees them', async (t) => {
  const me = await ctx.server.newUser();
  const [base, child] = [themeId('qbase'), themeId('qchild')];
  t.is((await postTheme(me.api, textured(base, 'wood.png'), [{ name: 'wood.png', data: pngOf(8 * KIB) }])).status, 201);
  // A child that uploads nothing still stores its own copy of the base's 8 KiB file: 16 KiB in all.
  const extending = (version: string, files: { name: string; data: Buffer }[] = []) =>
    postTheme(me.api, textured(child, 'wood.png', { version, extend: base }), files);
  t.is((await extending('1.0.0')).status, 201);

  const slug = await newRoom(me);
  const bg = (bytes: number) => me.api.post(`/room/${slug}`, undefined, { raw: fileForm(Buffer.concat([PNG, Buffer.alloc(bytes - PNG.length)])) });
  t.is((await bg(3 * KIB)).status, 200, '19 KiB');
  t.is((await bg(4 * KIB)).status, 200, 'replacing a background frees the old one first: 20 KiB, the limit exactly');
  const over = await bg(4 * KIB + 1);
  quotaRefused(
    t,
    over,
    'ASSET_BYTES_PER_USER',
    20480,
    /This upload of 4097 bytes would bring .* to 20481 bytes, over the 20480 bytes allowed.*delete a theme or a room background/,
  );
  t.regex((await me.api.get(`/room/${slug}`)).body.data.bg_file_path, /\/background\//, 'the 4 KiB background stays');
  quotaRefused(t, await extending('1.1.0'), 'ASSET_BYTES_PER_USER', 20480, /This upload of 8192 bytes would bring .* to 28672 bytes/);
  t.is((await me.api.get(`/theme/${child}`)).body.data.version, '1.0.0', 'nothing was stored');

  // Deleting the room frees its background (4 KiB): a version with a 4 KiB file of its own fits again.
  t.is((await me.api.delete(`/room/${slug}`)).status, 204);
  t.is((await extending('1.1.0', [{ name: 'wood.png', data: pngOf(4 * KIB) }])).status, 201, '16 + 4 KiB');
  // Deleting the base frees its 8 KiB; the child keeps its own copies (8 + 4 KiB).
  t.is((await me.api.delete(`/theme/${base}`)).status, 204);
  t.is((await postTheme(me.api, textured(themeId('qnext'), 'b.png'), [{ name: 'b.png', data: pngOf(8 * KIB) }])).status, 201, '12 + 8 KiB');
  t.is((await postTheme(me.api, manifest({ id: child, version: '1.2.0' }), [])).status, 201, 'a version without files needs no bytes');
});

test('share requests: a 3rd is a 409 naming SHARE_REQUESTS_PER_USER; revoking one makes room', async (t) => {
  const me = await ctx.server.newUser();
  const id = themeId('qs');
  t.is((await postTheme(me.api, manifest({ id }))).status, 201);
  const first = await me.api.post('/share-request', { theme: id, max_uses: 1 });
  t.is(first.status, 201);
  t.is((await me.api.post('/share-request', { theme: id })).status, 201);
  const refused = await me.api.post('/share-request', { theme: id });
  quotaRefused(t, refused, 'SHARE_REQUESTS_PER_USER', 2, /You have 2 share requests.*revoke one/);
  t.is((await me.api.get('/share-request')).body.meta.total, 2);

  // A used-up link still counts (PATCH can open it again): only revoking frees the slot.
  const taker = await ctx.server.newUser();
  t.is((await taker.api.post(`/share-request/code/${first.body.data.code}/accept`)).status, 200);
  t.is((await me.api.post('/share-request', { theme: id })).status, 409);
  t.is((await me.api.delete(`/share-request/${first.body.data.id}`)).status, 204);
  t.is((await me.api.post('/share-request', { theme: id })).status, 201);
});
