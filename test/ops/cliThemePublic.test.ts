import test from 'ava';
import { useServer } from '../helpers/server';
import { runCli } from '../helpers/cli';
import { manifest, postTheme } from '../fixtures/themes';

/**
 * The operators' CLI publishing a theme for everyone (`theme:public`), as its own process next to a
 * running server without Redis: the two share only the database. The server caches nothing here
 * (CACHE_TTL_MS=0), so each request reads what the CLI wrote; with caches, a server takes the change
 * up when Redis tells it (or within CACHE_TTL_MS), which test/api/caches.test.ts covers for dice boxes.
 */
const ctx = useServer(test, { CACHE_TTL_MS: '0' });
const cli = (...args: string[]) => {
  const { database } = ctx.server;
  return runCli({ DATA_DIR: database.dataDir, DATABASE_URL: database.databaseUrl ?? '', REDIS_URL: '', REDIS_CLUSTER_NODES: '' }, args);
};
const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((t) => t.id);

test('theme:public makes a theme rollable by every user and puts it in every dice box; theme:private undoes it', async (t) => {
  const owner = await ctx.server.newUser();
  const player = await ctx.server.newUser();
  const m = manifest();
  t.is((await postTheme(owner.api, m)).status, 201);
  const roll = () => player.api.post('/roll', { equation: '1d6', theme: m.id });
  t.is((await roll()).status, 422, 'not public yet: not in the player box');

  const out = await cli('theme:public', m.id as string);
  t.is(out.code, 0, out.stdout + out.stderr);
  t.regex(out.stdout, /is public: every user can roll with it, and it is in every dice box\./);
  const rolled = await roll();
  t.is(rolled.status, 201, rolled.text);
  t.is(rolled.body.data.values[0].theme, m.id);
  t.true(ids(await player.api.get('/dice-box')).includes(m.id as string));
  t.true(ids(await player.api.get('/theme')).includes(m.id as string));
  t.is((await player.api.delete(`/dice-box/${m.id}`)).status, 403);
  // Its owner's new versions are everyone's.
  t.is((await postTheme(owner.api, { ...m, version: '1.1.0' })).status, 201);
  t.is((await player.api.get(`/dice-box/${m.id}`)).body.data.version, '1.1.0');
  t.regex((await cli('theme:public', m.id as string)).stdout, /was already public/);

  const back = await cli('theme:private', m.id as string);
  t.is(back.code, 0, back.stdout + back.stderr);
  t.is((await roll()).status, 422);
  t.false(ids(await player.api.get('/dice-box')).includes(m.id as string));
});

test('theme:public names what is wrong: no id, a theme that does not exist; the built-in theme stays public', async (t) => {
  const none = await cli('theme:public');
  t.is(none.code, 1);
  t.regex(none.stderr, /A THEME_ID is required\./);
  const missing = await cli('theme:public', 'no-such-theme');
  t.is(missing.code, 1);
  t.regex(missing.stderr, /There is no theme "no-such-theme"\./);
  const standard = await cli('theme:private', 'standard');
  t.is(standard.code, 1);
  t.regex(standard.stderr, /always public/);
});
