import test from 'ava';
import { spawn } from 'node:child_process';
import { entryArgs, root } from '../helpers/entry';
import { useServer } from '../helpers/server';
import { WebClient } from './webClient';

/** The operators' CLI gives a user it made a web password (read from stdin), ending their sessions. */
const ctx = useServer(test);

function cli(args: string[], stdin = ''): Promise<{ code: number | null; out: string; err: string }> {
  const { database } = ctx.server;
  const child = spawn(process.execPath, [...entryArgs('cli'), ...args], {
    cwd: root,
    env: { ...process.env, DATA_DIR: database.dataDir, DATABASE_URL: database.databaseUrl ?? '', REDIS_URL: '', REDIS_CLUSTER_NODES: '', LOG_LEVEL: 'silent' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  child.stdin.end(stdin);
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, out, err })));
}

test('user:password sets the password of a user the CLI made, from stdin, and ends their sessions', async (t) => {
  t.is((await cli(['user:create', 'opal'])).code, 0);
  const before = new WebClient(ctx.server.url);
  t.is((await before.signIn('opal', 'first password!')).status, 401, 'no password yet: no web sign-in');

  const short = await cli(['user:password', 'opal'], 'short\n');
  t.is(short.code, 1);
  t.regex(short.err, /8 to 256 characters/);

  const set = await cli(['user:password', 'opal'], 'first password!\n');
  t.is(set.code, 0, set.err);
  t.false(set.out.includes('first password!'), 'the password is never printed');
  const web = new WebClient(ctx.server.url, '198.51.100.7');
  t.is((await web.signIn('opal', 'first password!')).status, 303);

  // The session's page key (the key its pages call the API with) ends with it.
  await web.get('/account');
  const made = await fetch(`${ctx.server.url}/account/page-key`, {
    method: 'POST',
    headers: { origin: ctx.server.url, 'x-csrf-token': web.csrf, cookie: web.cookieHeader() },
  });
  const { key } = (await made.json()) as { key: string };
  const me = () => fetch(`${ctx.server.url}/api/1.0/user`, { headers: { authorization: `Bearer ${key}` } });
  t.is((await me()).status, 200);

  t.is((await cli(['user:password', 'opal'], 'second password!\n')).code, 0);
  t.is((await web.get('/account')).location, '/signin', 'the session ended');
  // Another process revoked it: the server learns it from the database (users/revocationWatch.ts).
  let status = 200;
  for (let i = 0; i < 40 && status === 200; i++) {
    status = (await me()).status;
    if (status === 200) await new Promise((r) => setTimeout(r, 250));
  }
  t.is(status, 401, 'the page key was revoked with the sessions');
  t.is((await new WebClient(ctx.server.url, '198.51.100.8').signIn('opal', 'second password!')).status, 303);
});

test('user:password refuses a guest: a guest claims its account itself', async (t) => {
  const guest = await ctx.server.newUser();
  const res = await cli(['user:password', guest.user.username], 'a long password\n');
  t.is(res.code, 1);
  t.regex(res.err, /is a guest/);
});
