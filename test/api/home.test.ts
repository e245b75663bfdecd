import test from 'ava';
import { useServer } from '../helpers/server';

const ctx = useServer(test);

test('GET / is a page saying what this server is, linking the docs, the document, health and a room board', async (t) => {
  const res = await fetch(`${ctx.server.url}/`);
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /^text\/html/);
  t.regex(res.headers.get('content-security-policy') ?? '', /default-src 'none'/);
  const html = await res.text();
  t.regex(html, /dice rolling service/);
  for (const href of ['/docs', '/api/1.0/openapi.json', '/healthz', '/readyz']) t.true(html.includes(`href="${href}"`), href);
  t.regex(html, /<form method="get" action="\/">/);
  t.notRegex(html, /<script/i);
  for (const href of [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!)) {
    t.is((await fetch(`${ctx.server.url}${href}`)).status, 200, `the link ${href} works`);
  }
});

test("the page's form takes a room slug to its board", async (t) => {
  const { api } = await ctx.server.newUser();
  const { slug } = (await api.post('/room', { name: 'Home page table' })).body.data;
  const res = await fetch(`${ctx.server.url}/?room=${encodeURIComponent(` ${slug} `)}`, { redirect: 'manual' });
  t.is(res.status, 303);
  t.is(res.headers.get('location'), `/board/${slug}`);
  const board = await fetch(`${ctx.server.url}${res.headers.get('location')}`);
  t.is(board.status, 200);
  const odd = await fetch(`${ctx.server.url}/?room=${encodeURIComponent('../admin?x=<b>')}`, { redirect: 'manual' });
  t.is(odd.headers.get('location'), `/board/${encodeURIComponent('../admin?x=<b>')}`, 'the slug stays one path segment');
  t.is((await fetch(`${ctx.server.url}/?room=`)).status, 200, 'an empty slug shows the page');
});
