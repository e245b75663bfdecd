import test from 'ava';
import { useServer } from '../helpers/server';
import { requestWithHost } from '../helpers/hostHeader';
import { fileForm, PNG, userWithRoom } from '../rooms/support';

/**
 * The stored background link and the Host header: were the upload request's Host to go into the stored
 * `bg_file_path`, an owner sending `Host: evil.example` would make every participant load the background
 * from that site, and a long Host would overflow varchar(512) on PostgreSQL (a 500 where SQLite says 200). Stored
 * links now take their origin from PUBLIC_URL or an allowed host (ALLOWED_HOSTS, loopback names by
 * default), and are root-relative otherwise. This server runs with the defaults.
 */
const ctx = useServer(test);

const RELATIVE = (slug: string) => new RegExp(`^/api/1\\.0/room/${slug}/background/[0-9a-f]{64}\\.png$`);

async function uploadWithHost(key: string, slug: string, host: string, headers: Record<string, string> = {}) {
  return requestWithHost(`${ctx.server.url}/api/1.0/room/${slug}`, 'POST', host, { key, body: fileForm(PNG), headers });
}

test('a forged Host is not stored: the background link is root-relative, and every participant sees that', async (t) => {
  const { owner, slug } = await userWithRoom(ctx.server);
  const member = await ctx.server.newUser();
  t.is((await member.api.post(`/room/${slug}/participant`)).status, 200);

  const res = await uploadWithHost(owner.key, slug, 'evil.example');
  t.is(res.status, 200, res.text);
  const path: string = res.body.data.bg_file_path;
  t.regex(path, RELATIVE(slug));
  t.false(res.text.includes('evil.example'));
  const seen = await member.api.get(`/room/${slug}`);
  t.is(seen.body.data.bg_file_path, path, 'what others are shown is the relative link, not the forged host');
  // resolved against the server the client talks to, it is the image
  const image = await fetch(new URL(path, ctx.server.url));
  t.is(image.status, 200);
  t.is(image.headers.get('content-type'), 'image/png');
  // PATCH with the link as shown is "unchanged", as with absolute links
  t.is((await owner.api.patch(`/room/${slug}`, { name: 'renamed', bg_file_path: path })).status, 200);
});

test('a Host of 600 characters is a 200 with a relative link, on PostgreSQL as on SQLite (it was a 500)', async (t) => {
  const { owner, slug } = await userWithRoom(ctx.server);
  const longHost = Array.from({ length: 10 }, () => 'a'.repeat(59)).join('.');
  t.true(longHost.length > 512);
  const res = await uploadWithHost(owner.key, slug, longHost);
  t.is(res.status, 200, res.text.slice(0, 300));
  t.regex(res.body.data.bg_file_path, RELATIVE(slug));
  t.true(res.body.data.bg_file_path.length <= 512);
  // and a Host that is not a host at all
  const odd = await uploadWithHost(owner.key, slug, 'evil.example/x?y=');
  t.is(odd.status, 200);
  t.regex(odd.body.data.bg_file_path, RELATIVE(slug));
});

test('a loopback Host (allowed by default) gives an absolute link; X-Forwarded-Proto is ignored without TRUST_PROXY', async (t) => {
  const { owner, slug } = await userWithRoom(ctx.server);
  const port = new URL(ctx.server.url).port;
  const local = await uploadWithHost(owner.key, slug, `localhost:${port}`, { 'x-forwarded-proto': 'javascript' });
  t.is(local.status, 200);
  t.regex(local.body.data.bg_file_path, new RegExp(`^http://localhost:${port}/api/1\\.0/room/${slug}/background/[0-9a-f]{64}\\.png$`));
  const loopback = await uploadWithHost(owner.key, slug, `127.0.0.1:${port}`);
  t.regex(loopback.body.data.bg_file_path, new RegExp(`^http://127\\.0\\.0\\.1:${port}/`));
  t.is((await fetch(loopback.body.data.bg_file_path)).status, 200);
});

test('links answered only to the requester (pages) still use its Host, with the scheme kept to http or https', async (t) => {
  const me = await ctx.server.newUser();
  const res = await requestWithHost(`${ctx.server.url}/api/1.0/room?per_page=1`, 'GET', 'lan-box:3000', {
    key: me.key,
    headers: { 'x-forwarded-proto': 'javascript' },
  });
  t.is(res.status, 200);
  t.is(res.body.meta.path, 'http://lan-box:3000/api/1.0/room');
});
