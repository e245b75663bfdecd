import test from 'ava';
import { useServer } from '../helpers/server';

// A small budget so the test reaches it: 3 wrong passcodes per user and room per hour.
const ctx = useServer(test, { PASSCODE_FAILURES_PER_HOUR: '3' });

async function privateRoom(passcode: string) {
  const owner = await ctx.server.newUser();
  const res = await owner.api.post('/room', { name: 'Vault', is_public: false, passcode });
  if (res.status !== 201) throw new Error(`room creation failed: ${res.status} ${res.text}`);
  return { owner, slug: res.body.data.slug as string };
}

function assertLimited(t: any, res: { status: number; body: any; headers: Headers }, what: string) {
  t.is(res.status, 429, what);
  t.is(res.body.type, 'error');
  t.is(res.body.data.code, 'rate_limited');
  t.regex(res.body.data.message, /try again in \d+ seconds?/);
  const retryAfter = Number(res.headers.get('retry-after'));
  t.true(retryAfter > 0 && retryAfter <= 3600, `Retry-After ${retryAfter}`);
}

test('wrong passcodes turn from 403 to 429 per user and room, then even the right one waits', async (t) => {
  const { slug } = await privateRoom('abcd');
  const { slug: otherSlug } = await privateRoom('wxyz');
  const guesser = await ctx.server.newUser();
  const bystander = await ctx.server.newUser();

  // Joining and viewing with ?passcode= are the same guesses, counted together.
  t.is((await guesser.api.post(`/room/${slug}/participant`, { passcode: 'aaaa' })).status, 403);
  t.is((await guesser.api.get(`/room/${slug}?passcode=aaab`)).status, 403);
  t.is((await guesser.api.post(`/room/${slug}/participant?passcode=aaac`)).status, 403);
  assertLimited(t, await guesser.api.post(`/room/${slug}/participant`, { passcode: 'aaad' }), 'the 4th wrong passcode');
  assertLimited(t, await guesser.api.get(`/room/${slug}?passcode=aaae`), 'viewing with a guess is limited too');
  assertLimited(t, await guesser.api.post(`/room/${slug}/participant`, { passcode: 'abcd' }), 'the right passcode past the limit: no oracle');

  // Without a passcode nothing is guessed: still the plain 403.
  t.is((await guesser.api.get(`/room/${slug}`)).status, 403);
  // Other rooms, and other users of this room, have budgets of their own.
  t.is((await guesser.api.post(`/room/${otherSlug}/participant`, { passcode: 'nope' })).status, 403);
  t.is((await bystander.api.post(`/room/${slug}/participant`, { passcode: 'abcd' })).status, 200);
});

test('right passcodes and answers other than "wrong passcode" are not counted', async (t) => {
  const { slug } = await privateRoom('open-sesame');
  const viewer = await ctx.server.newUser();
  for (let i = 0; i < 5; i++) t.is((await viewer.api.get(`/room/${slug}?passcode=open-sesame`)).status, 200, `view ${i + 1} with the right passcode`);
  t.is((await viewer.api.post(`/room/${slug}/participant`, { passcode: 'open-sesame' })).status, 200);
  for (let i = 0; i < 5; i++) t.is((await viewer.api.post(`/room/${slug}/participant`, { passcode: 'open-sesame' })).status, 409, 'already a participant');
  t.is((await viewer.api.post('/room/nosuchroom42/participant', { passcode: 'x1x1' })).status, 404);
  // A participant who sends a wrong passcode is let in as a participant: not a guess either.
  t.is((await viewer.api.get(`/room/${slug}?passcode=wrong-one`)).status, 200);

  const guesser = await ctx.server.newUser();
  for (let i = 0; i < 3; i++) t.is((await guesser.api.post(`/room/${slug}/participant`, { passcode: `guess-${i}` })).status, 403);
  t.is((await guesser.api.post(`/room/${slug}/participant`, { passcode: 'guess-3' })).status, 429);
});

test('a burst of guesses sent at once gets exactly the budget compared, the rest 429', async (t) => {
  const { slug } = await privateRoom('zz99');
  const guesser = await ctx.server.newUser();
  const answers = await Promise.all(
    Array.from({ length: 40 }, (_, i) => guesser.api.post(`/room/${slug}/participant`, { passcode: `g${String(i).padStart(3, '0')}` })),
  );
  const statuses = answers.map((a) => a.status);
  t.is(statuses.filter((s) => s === 403).length, 3, 'only 3 passcodes were ever compared');
  t.is(statuses.filter((s) => s === 429).length, 37);
  t.log(`burst of 40 wrong passcodes at once: ${statuses.filter((s) => s === 403).length} x 403, ${statuses.filter((s) => s === 429).length} x 429`);
});
