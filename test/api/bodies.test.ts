import test from 'ava';
import { request } from '../helpers/http';
import { useServer } from '../helpers/server';

const ctx = useServer(test);
const json = { 'content-type': 'application/json' };
// Over the 16 KiB read before the key is checked, under JSON_BODY_LIMIT (1 MB).
const big = (filler: string) => `{"name": "x", "padding": "${filler.repeat(100_000)}"`;

test('a large body without a valid key is refused before it is parsed', async (t) => {
  const url = `${ctx.server.url}/api/1.0/room`;
  // Malformed on purpose: parsed, it would be a 400 malformed_json; refused unread, it is a 401.
  for (const key of [null, 'dk_notarealkeynotarealkeynotarealkeynotarealk']) {
    const res = await request(url, 'POST', { key, raw: big('z'), headers: json });
    t.is(res.status, 401, `key ${key}`);
    t.is(res.body.data.code, 'unauthorized');
    t.is(res.headers.get('connection'), 'close', 'the unread rest of the body is not drained: the connection closes');
  }
  // A small body is still read up front (guest creation takes no body, and ignores one).
  const small = await request(url, 'POST', { raw: '{"name": ', headers: json });
  t.is(small.status, 400);
  t.is(small.body.data.code, 'malformed_json');
  t.is((await request(`${ctx.server.url}/api/1.0/user`, 'POST', { body: {} })).status, 201, 'guest creation with a JSON body');
  t.is((await request(`${ctx.server.url}/api/1.0/user`, 'POST', { raw: `${big('q')}}`, headers: json })).status, 201, 'and with a large one, left unread');
});

test('with a valid key, large bodies are parsed and validated as before', async (t) => {
  const { key } = await ctx.server.newUser();
  const url = `${ctx.server.url}/api/1.0/room`;
  const malformed = await request(url, 'POST', { key, raw: big('z'), headers: json });
  t.is(malformed.status, 400);
  t.is(malformed.body.data.code, 'malformed_json');
  const longName = await request(url, 'POST', { key, body: { name: 'n'.repeat(100_000) } });
  t.is(longName.status, 400, 'parsed, then refused by validation');
  t.is(longName.body.data.code, 'validation_error');
  // A roll of 100 dice with 2 KB of meta each, about 230 KB: read once the key is good, then refused
  // by the roll's storage bound (src/rolls/limits.ts), the body read to its end.
  const meta = { note: 'm'.repeat(2000) };
  const dice = Array.from({ length: 100 }, () => ({ type: 'd6', theme: 'standard', meta }));
  const roll = await request(`${ctx.server.url}/api/1.0/roll`, 'POST', { key, body: { dice } });
  t.is(roll.status, 400, roll.text.slice(0, 200));
  t.is(roll.body.data.details[0].path, 'dice');
  t.not(roll.headers.get('connection'), 'close', 'a body that was read keeps its connection');
  // Chunked bodies (no Content-Length) wait for the key too, and are read once it is good.
  const chunks = (text: string) => new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode(text)), c.close()) });
  const chunkedNoKey = await fetch(url, { method: 'POST', headers: json, body: chunks('{"name": '), duplex: 'half' } as RequestInit);
  t.is(chunkedNoKey.status, 401);
  const chunked = await fetch(url, {
    method: 'POST',
    headers: { ...json, authorization: `Bearer ${key}` },
    body: chunks('{"name": "chunked"}'),
    duplex: 'half',
  } as RequestInit);
  t.is(chunked.status, 201);
});
