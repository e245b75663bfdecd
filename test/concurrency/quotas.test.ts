import test, { type ExecutionContext } from 'ava';
import { png } from '../fixtures/assets';
import { manifest, postTheme, themeId } from '../fixtures/themes';
import type { HttpResponse } from '../helpers/http';
import { useServer } from '../helpers/server';
import { fileForm, PNG } from '../rooms/support';

// Quotas under simultaneous requests: a count-then-insert races unless the count and
// the insert share a transaction under a per-user lock. N requests at once against a quota of 5 must admit
// exactly 5, on SQLite (writers serialized in-process) and PostgreSQL (an advisory lock per user).
const LIMIT = 5;
const N = 20;
const KIB = 1024;
const ctx = useServer(test, {
  ROOMS_PER_USER: String(LIMIT),
  ROOMS_JOINED_PER_USER: String(LIMIT),
  THEMES_PER_USER: String(LIMIT),
  SHARE_REQUESTS_PER_USER: String(LIMIT),
  ASSET_BYTES_PER_USER: '40kb',
});

/** Exactly `admitted` successes, every other answer a 409 quota_exceeded. */
function admitsExactly(t: ExecutionContext, answers: HttpResponse[], admitted: number, success: number) {
  const statuses = answers.map((a) => a.status);
  t.is(statuses.filter((s) => s === success).length, admitted, statuses.join(','));
  const refused = answers.filter((a) => a.status !== success);
  t.true(
    refused.every((a) => a.status === 409 && a.body.data.code === 'quota_exceeded'),
    refused.map((a) => `${a.status} ${a.body?.data?.code}`).join(','),
  );
}

test(`${N} rooms created at once by one user with ROOMS_PER_USER=${LIMIT}: exactly ${LIMIT} exist`, async (t) => {
  const me = await ctx.server.newUser();
  const answers = await Promise.all(Array.from({ length: N }, (_, i) => me.api.post('/room', { name: `Flood ${i}` })));
  admitsExactly(t, answers, LIMIT, 201);
  t.is((await me.api.get('/room')).body.meta.total, LIMIT);
});

test(`${N} rooms of others joined at once with ROOMS_JOINED_PER_USER=${LIMIT}: exactly ${LIMIT} joined`, async (t) => {
  // Joins lock different rooms: only the per-user lock stands between them.
  const owners = await Promise.all(Array.from({ length: N / LIMIT }, () => ctx.server.newUser()));
  const slugs: string[] = [];
  for (const owner of owners) {
    for (let i = 0; i < LIMIT; i++) slugs.push((await owner.api.post('/room', {})).body.data.slug);
  }
  const me = await ctx.server.newUser();
  const answers = await Promise.all(slugs.map((slug) => me.api.post(`/room/${slug}/participant`)));
  admitsExactly(t, answers, LIMIT, 200);
  t.is((await me.api.get('/room')).body.meta.total, LIMIT);
});

test(`${N} theme ids published at once with THEMES_PER_USER=${LIMIT}: exactly ${LIMIT} exist`, async (t) => {
  const me = await ctx.server.newUser();
  const answers = await Promise.all(Array.from({ length: N }, () => postTheme(me.api, manifest({ id: themeId('race') }))));
  admitsExactly(t, answers, LIMIT, 201);
  const listed = (await me.api.get('/theme?per_page=100')).body.data as { id: string }[];
  t.is(listed.filter((theme) => theme.id.startsWith('race-')).length, LIMIT);
});

test(`${N} share requests made at once with SHARE_REQUESTS_PER_USER=${LIMIT}: exactly ${LIMIT} exist`, async (t) => {
  const me = await ctx.server.newUser();
  const id = themeId('shared');
  t.is((await postTheme(me.api, manifest({ id }))).status, 201);
  const answers = await Promise.all(Array.from({ length: N }, () => me.api.post('/share-request', { theme: id })));
  admitsExactly(t, answers, LIMIT, 201);
  t.is((await me.api.get('/share-request')).body.meta.total, LIMIT);
});

test('10 KiB theme files and room backgrounds uploaded at once with ASSET_BYTES_PER_USER=40kb: exactly 4 stored', async (t) => {
  const me = await ctx.server.newUser();
  const slugs: string[] = [];
  for (let i = 0; i < 4; i++) slugs.push((await me.api.post('/room', {})).body.data.slug);
  const tenKib = (head: Buffer) => Buffer.concat([head, Buffer.alloc(10 * KIB - head.length)]);
  // Themes and backgrounds share one quota and one lock: mixed, they still cannot overshoot it.
  const answers = await Promise.all([
    ...slugs.map((slug) => me.api.post(`/room/${slug}`, undefined, { raw: fileForm(tenKib(PNG)) })),
    ...Array.from({ length: 4 }, () => {
      const id = themeId('bytes');
      return postTheme(me.api, manifest({ id, textures: [{ binding: 'map', src: 'big.png' }] }), [{ name: 'big.png', data: tenKib(png()) }]);
    }),
  ]);
  const statuses = answers.map((a) => a.status);
  t.is(statuses.filter((s) => s === 200 || s === 201).length, 4, statuses.join(','));
  t.true(
    answers.every((a) => a.status < 300 || a.body.data.code === 'quota_exceeded'),
    statuses.join(','),
  );
  // What is stored agrees with what was answered.
  const backgrounds = (await Promise.all(slugs.map((slug) => me.api.get(`/room/${slug}`)))).filter((r) => r.body.data.bg_file_path !== null).length;
  const themes = ((await me.api.get('/theme?per_page=100')).body.data as { id: string }[]).filter((theme) => theme.id.startsWith('bytes-')).length;
  t.is(backgrounds + themes, 4);
  t.is(backgrounds, statuses.slice(0, 4).filter((s) => s === 200).length);
});
