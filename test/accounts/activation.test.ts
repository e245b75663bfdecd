import test from 'ava';
import { randomBytes } from 'node:crypto';
import type { ActivatePageState } from '../../src/activation/page/state';
import { db } from '../../src/db';
import { spawnInstance, type Instance } from '../helpers/process';
import { useServer } from '../helpers/server';
import { WebClient, type WebAnswer } from './webClient';

// Activation codes (dddice's device login): the API an integration calls without a key, and the
// /activate page a signed-in person approves its code on. Addresses come from X-Forwarded-For behind
// one trusted proxy, one per test, so that the per-address limits of one test do not reach another.
const ctx = useServer(test, { TRUST_PROXY: '1', ACTIVATIONS_PER_HOUR: '4', ACTIVATION_FAILURES_PER_HOUR: '3', ACTIVATION_ADDRESS_FAILURES_PER_HOUR: '100' });

let addresses = 0;
const nextAddress = () => `203.0.113.${++addresses}`;
const name = (prefix: string) => `${prefix}${randomBytes(3).toString('hex')}`;
const PASSWORD = 'correct horse battery';

interface Created {
  code: string;
  secret: string;
  expires_at: string;
}

/** An integration as the SDK is one: POST /activate (with its X-Extension name), then polls with the secret. */
class Integration {
  constructor(
    readonly base: string,
    readonly address = nextAddress(),
    readonly extension: string | null = 'Owlbear Rodeo',
  ) {}

  async activate(): Promise<{ status: number; headers: Headers; body: { type: string; data: Created } }> {
    const res = await fetch(`${this.base}/api/1.0/activate`, {
      method: 'POST',
      headers: { 'x-forwarded-for': this.address, ...(this.extension === null ? {} : { 'x-extension': this.extension }) },
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as { type: string; data: Created } };
  }

  async poll(
    code: string,
    authorization: string | null,
  ): Promise<{
    status: number;
    headers: Headers;
    body: { type?: string; data: { token?: string | null; code?: string; expires_at?: string; code_?: string } & Record<string, unknown> };
  }> {
    const res = await fetch(`${this.base}/api/1.0/activate/${encodeURIComponent(code)}`, {
      headers: { 'x-forwarded-for': this.address, ...(authorization === null ? {} : { authorization }) },
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as never };
  }
}

const pageOf = (answer: WebAnswer) => answer.state as unknown as ActivatePageState | null;

async function signedIn(base = ctx.server.url): Promise<{ web: WebClient; username: string }> {
  const web = new WebClient(base, nextAddress());
  const username = name('gm');
  const res = await web.signUp(username, PASSWORD);
  if (res.status !== 303) throw new Error(`sign-up answered ${res.status}`);
  return { web, username };
}

/** A person approves `code` on the page: GET with the code (the confirmation), then POST Approve. */
async function approveOnPage(web: WebClient, code: string): Promise<WebAnswer> {
  const confirm = await web.get(`/activate?code=${code}`);
  if (confirm.status !== 200) return confirm;
  return web.post('/activate', { code });
}

test("POST /activate answers a typeable code, a long secret and the expiry; only the secret's hash is stored", async (t) => {
  // A header holds bytes: a name in UTF-8 goes as its bytes (fetch takes them as latin1 characters).
  const integration = new Integration(ctx.server.url, nextAddress(), Buffer.from('GM\u2019s Grimoire').toString('latin1'));
  const before = Date.now();
  const res = await integration.activate();
  t.is(res.status, 201);
  t.is(res.headers.get('cache-control'), 'no-store');
  t.is(res.body.type, 'activate');
  const { code, secret, expires_at } = res.body.data;
  t.regex(code, /^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{6}$/);
  t.regex(secret, /^[\w-]{43}$/);
  t.regex(expires_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  const ttl = Date.parse(expires_at) - before;
  t.true(ttl > 9 * 60_000 && ttl <= 10 * 60_000 + 5_000, `expires in ${ttl} ms`);
  const [row] = await db().sql.query<Record<string, unknown>>('SELECT * FROM activation_codes WHERE code = $1', [code]);
  t.truthy(row);
  t.false(JSON.stringify(row).includes(secret), 'the secret itself is not stored');
  t.is(row!.integration, 'GM\u2019s Grimoire', 'a UTF-8 name survives the header');

  // Control characters and line breaks never make it into a name; long names are cut at 64.
  const odd = await new Integration(ctx.server.url, nextAddress(), `${'x'.repeat(100)}\tmore`).activate();
  const [oddRow] = await db().sql.query<{ integration: string }>('SELECT integration FROM activation_codes WHERE code = $1', [odd.body.data.code]);
  t.is(oddRow!.integration, 'x'.repeat(64));
  const none = await new Integration(ctx.server.url, nextAddress(), null).activate();
  t.is(none.status, 201);
  const [noneRow] = await db().sql.query<{ integration: unknown }>('SELECT integration FROM activation_codes WHERE code = $1', [none.body.data.code]);
  t.is(noneRow!.integration, null);
});

test('polling: no secret or a wrong one is 401, an unknown code 404, the right secret 200 with a null token until approved', async (t) => {
  const integration = new Integration(ctx.server.url);
  const { code, secret } = (await integration.activate()).body.data;
  t.is((await integration.poll(code, null)).status, 401);
  t.is((await integration.poll(code, `Bearer ${secret}`)).status, 401, 'a Bearer header is not the secret');
  const wrong = await integration.poll(code, `Secret ${randomBytes(32).toString('base64url')}`);
  t.is(wrong.status, 401);
  t.is((wrong.body as unknown as { data: { code: string } }).data.code, 'unauthorized');
  t.is((await integration.poll(code, 'Secret short')).status, 401);
  t.is((await integration.poll('ZZZZZZ', `Secret ${secret}`)).status, 404);
  t.is((await integration.poll('not-a-code-at-all', `Secret ${secret}`)).status, 404);
  const waiting = await integration.poll(code, `Secret ${secret}`);
  t.is(waiting.status, 200);
  t.is(waiting.headers.get('cache-control'), 'no-store');
  t.deepEqual(waiting.body, { type: 'activate', data: { code, expires_at: waiting.body.data.expires_at, token: null } });
  t.is((await integration.poll(code.toLowerCase(), `secret ${secret}`)).status, 200, 'the code and the scheme in any case');
});

test('a person approves the code on /activate: the next poll gets a key once, labelled with the integration, that works and can be revoked', async (t) => {
  const { web, username } = await signedIn();
  const integration = new Integration(ctx.server.url, nextAddress(), 'Owlbear <b>Rodeo</b>');
  const { code, secret } = (await integration.activate()).body.data;

  const entry = await web.get('/activate');
  t.is(entry.status, 200);
  t.is(pageOf(entry)!.step, 'enter');
  t.regex(entry.headers.get('content-security-policy') ?? '', /script-src 'self'.*frame-ancestors 'none'/);
  t.is(entry.headers.get('cache-control'), 'no-store');

  // Typed as a person might: lower case, in two halves.
  const confirm = await web.get(`/activate?code=${encodeURIComponent(`${code.slice(0, 3).toLowerCase()} ${code.slice(3)}`)}`);
  t.is(confirm.status, 200);
  t.like(pageOf(confirm), { step: 'confirm', code, integration: 'Owlbear <b>Rodeo</b>', signedInAs: username });
  t.false(confirm.text.includes('<b>Rodeo'), 'the name is escaped in the shell');
  t.is((await integration.poll(code, `Secret ${secret}`)).body.data.token, null, 'looking at it approves nothing');

  const done = await web.post('/activate', { code });
  t.is(done.status, 200);
  t.like(pageOf(done), { step: 'done', integration: 'Owlbear <b>Rodeo</b>', signedInAs: username });

  const got = await integration.poll(code, `Secret ${secret}`);
  t.is(got.status, 200);
  const token = got.body.data.token!;
  t.regex(token, /^dk_[\w-]{43}$/);
  const me = await fetch(`${ctx.server.url}/api/1.0/user`, { headers: { authorization: `Bearer ${token}` } });
  t.is(me.status, 200);
  t.is(((await me.json()) as { data: { username: string } }).data.username, username);

  // Spent: the key is not handed out again.
  const again = await integration.poll(code, `Secret ${secret}`);
  t.is(again.status, 410);
  t.regex((again.body as unknown as { data: { message: string } }).data.message, /used already/);
  // A second approval of the same code is refused.
  t.is((await web.get(`/activate?code=${code}`)).status, 410);

  const keys = (await web.get('/account')).state!.account!.keys;
  t.is(keys.length, 1);
  t.is(keys[0]!.label, 'Owlbear <b>Rodeo</b>');
  t.is(keys[0]!.prefix, token.slice(0, 11));
  t.is((await web.post('/account/keys/revoke', { prefix: keys[0]!.prefix })).status, 303);
  t.is((await fetch(`${ctx.server.url}/api/1.0/user`, { headers: { authorization: `Bearer ${token}` } })).status, 401);
});

test('two polls at once after approval: exactly one gets the key, the others hear 410', async (t) => {
  const { web } = await signedIn();
  const integration = new Integration(ctx.server.url, nextAddress(), 'Race');
  const { code, secret } = (await integration.activate()).body.data;
  t.is((await approveOnPage(web, code)).status, 200);
  const polls = await Promise.all(Array.from({ length: 8 }, () => integration.poll(code, `Secret ${secret}`)));
  const statuses = polls.map((p) => p.status).sort();
  t.deepEqual(statuses, [200, 410, 410, 410, 410, 410, 410, 410]);
  t.regex(polls.find((p) => p.status === 200)!.body.data.token!, /^dk_/);
  t.is((await web.get('/account')).state!.account!.keys.filter((k) => k.label === 'Race').length, 1, 'one key was made');
});

test('two people approving one code at once: one approves it, the other is told it cannot be any more', async (t) => {
  const [alice, bob] = await Promise.all([signedIn(), signedIn()]);
  const integration = new Integration(ctx.server.url, nextAddress(), 'Contested');
  const { code, secret } = (await integration.activate()).body.data;
  await Promise.all([alice.web.get(`/activate?code=${code}`), bob.web.get(`/activate?code=${code}`)]);
  const answers = await Promise.all([alice.web.post('/activate', { code }), bob.web.post('/activate', { code })]);
  const statuses = answers.map((a) => a.status);
  t.true([200, 409, 410].includes(statuses[0]!) && [200, 409, 410].includes(statuses[1]!), `answers: ${statuses}`);
  t.is(statuses.filter((s) => s === 200).length, 1, 'one approval');
  const winner = statuses[0] === 200 ? alice : bob;
  const token = (await integration.poll(code, `Secret ${secret}`)).body.data.token!;
  const me = (await (await fetch(`${ctx.server.url}/api/1.0/user`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
    data: { username: string };
  };
  t.is(me.data.username, winner.username, "the key is the approver's");
});

test('an expired code: the poll hears 410 and the page refuses it with 410', async (t) => {
  const { web } = await signedIn();
  const integration = new Integration(ctx.server.url);
  const { code, secret } = (await integration.activate()).body.data;
  // Ten minutes later, for this code.
  await db().sql.transaction((query) => query('UPDATE activation_codes SET expires_ms = $1 WHERE code = $2', [Date.now() - 1, code]));
  const polled = await integration.poll(code, `Secret ${secret}`);
  t.is(polled.status, 410);
  t.regex((polled.body as unknown as { data: { message: string } }).data.message, /expired/);
  t.is((await integration.poll(code, 'Secret AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).status, 401, 'the secret is checked before anything is said');
  const page = await web.get(`/activate?code=${code}`);
  t.is(page.status, 410);
  t.like(pageOf(page), { step: 'enter' });
  t.regex(pageOf(page)!.error!, /expired/);
  t.is((await web.post('/activate', { code })).status, 410);
});

test('signed out, /activate sends the person to sign in and back with the code', async (t) => {
  const integration = new Integration(ctx.server.url);
  const { code } = (await integration.activate()).body.data;
  const web = new WebClient(ctx.server.url, nextAddress());
  const res = await web.get(`/activate?code=${code}`);
  t.is(res.status, 303);
  t.is(res.location, `/signin?next=${encodeURIComponent(`/activate?code=${code}`)}`);
  const signup = await web.get(res.location!.replace('/signin', '/signup'));
  t.is(pageOf(signup) && (signup.state!.next ?? null), `/activate?code=${code}`);
  const made = await web.post('/signup', { username: name('late'), password: PASSWORD, next: `/activate?code=${code}` });
  t.is(made.location, `/activate?code=${code}`);
  t.is(pageOf(await web.get(made.location!))!.step, 'confirm');
  // A form posted without a session goes to sign-in too, and approves nothing.
  const stranger = new WebClient(ctx.server.url, nextAddress());
  t.is((await stranger.post('/activate', { code, _csrf: null })).status, 303);
});

test('Approve without its CSRF token is refused with 403 and approves nothing', async (t) => {
  const { web } = await signedIn();
  const integration = new Integration(ctx.server.url);
  const { code, secret } = (await integration.activate()).body.data;
  await web.get(`/activate?code=${code}`);
  t.is((await web.post('/activate', { code, _csrf: null })).status, 403);
  t.is((await web.post('/activate', { code, _csrf: 'A'.repeat(43) })).status, 403);
  t.is((await integration.poll(code, `Secret ${secret}`)).body.data.token, null);
});

test('guessing codes on /activate is limited per account: past the limit even a right code is 429', async (t) => {
  const { web } = await signedIn();
  const { code } = (await new Integration(ctx.server.url).activate()).body.data;
  const answers: number[] = [];
  for (const guess of ['ZZZZZZ', 'YYYYYY', 'XXXXXX']) answers.push((await web.get(`/activate?code=${guess}`)).status);
  t.deepEqual(answers, [404, 404, 404]);
  const blocked = await web.get(`/activate?code=${code}`);
  t.is(blocked.status, 429);
  t.truthy(blocked.headers.get('retry-after'));
  t.regex(pageOf(blocked)!.error!, /Too many requests/);
  t.is((await web.post('/activate', { code })).status, 429);
  // Malformed codes are not guesses (the page says what a code looks like), and another account is not limited.
  const other = await signedIn();
  t.is((await other.web.get('/activate?code=no')).status, 400);
  t.is((await other.web.get(`/activate?code=${code}`)).status, 200);
});

test("creating codes is limited per address; polling at the SDK's pace is not, a flood on one code is", async (t) => {
  const address = nextAddress();
  const integration = new Integration(ctx.server.url, address);
  const statuses: number[] = [];
  let first: Created | null = null;
  for (let i = 0; i < 5; i++) {
    const res = await integration.activate();
    statuses.push(res.status);
    first ??= res.body.data;
  }
  t.deepEqual(statuses, [201, 201, 201, 201, 429]);
  // The SDK polls every 5 s: a minute of it is 12 polls. A code takes 60 a minute, then 429.
  const polls: number[] = [];
  for (let i = 0; i < 61; i++) polls.push((await integration.poll(first!.code, `Secret ${first!.secret}`)).status);
  t.deepEqual(polls.slice(0, 60), Array(60).fill(200));
  t.is(polls[60], 429);
});

test('an account holding 20 live keys cannot approve: the page says to revoke one', async (t) => {
  const { web } = await signedIn();
  await web.get('/account');
  for (let i = 0; i < 20; i++) await web.post('/account/keys', { label: `k${i}` });
  const { code } = (await new Integration(ctx.server.url).activate()).body.data;
  const refused = await approveOnPage(web, code);
  t.is(refused.status, 409);
  t.regex(pageOf(refused)!.error!, /20 live API keys/);
});

// Another instance (its own process, the same database): a code made there is approved here and
// polled there, and the instance's log lines (info level, one per request) carry neither the
// secret nor the key.
test.serial('across instances, and no secret or key in the logs', async (t) => {
  const database = ctx.server.database;
  let other: Instance | null = null;
  try {
    other = await spawnInstance({ DATA_DIR: database.dataDir, DATABASE_URL: database.databaseUrl ?? '', LOG_LEVEL: 'debug', TRUST_PROXY: '1' });
    const there = new Integration(other.url, nextAddress(), 'Elsewhere');
    const { code, secret } = (await there.activate()).body.data;
    t.is((await there.poll(code, `Secret ${secret}`)).body.data.token, null);
    const { web } = await signedIn();
    t.is((await approveOnPage(web, code)).status, 200);
    // One poll on each instance at once: one key.
    const here = new Integration(ctx.server.url, there.address);
    const [a, b] = await Promise.all([there.poll(code, `Secret ${secret}`), here.poll(code, `Secret ${secret}`)]);
    t.deepEqual([a.status, b.status].sort(), [200, 410]);
    const token = (a.status === 200 ? a : b).body.data.token!;
    t.is((await fetch(`${other.url}/api/1.0/user`, { headers: { authorization: `Bearer ${token}` } })).status, 200);
    const logs = other.output();
    t.true(logs.includes('/api/1.0/activate'), 'the instance logged its requests');
    t.false(logs.includes(secret), 'no secret in the logs');
    t.false(logs.includes(token), 'no key in the logs');
  } finally {
    await other?.stop();
  }
});
