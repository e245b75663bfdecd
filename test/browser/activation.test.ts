import test from 'ava';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { WebClient } from '../accounts/webClient';
import { useServer } from '../helpers/server';
import { useChromium, watchPage } from './chromium';
import { checkPage } from './pageChecks';

/**
 * Activation codes end to end, as an integration and a person meet them: the stock dddice SDK
 * (dddice-js 0.19.34-974, its Node build, unchanged but for its host) calls `user.activate()` with an
 * app name (its X-Extension header) and polls the way it does, every 5 s with the code's secret; a
 * person in Chromium opens /activate, signs in, types the code, sees the integration's name, clicks
 * Approve; the SDK's poll then resolves with a key that works on the API, and the key is in the
 * person's developer settings under the integration's name. axe-core on each step of the page
 * (no serious or critical violation) at 1280 and 375 px, where nothing may scroll sideways.
 * Screenshots go to $ACTIVATION_SCREENSHOTS (default: a temporary directory), to be looked at.
 */
const ctx = useServer(test);
const chrome = useChromium(test);
const logs: string[] = [];
test.afterEach.always((t) => {
  if (!t.passed && logs.length) t.log(logs.join('\n'));
});

const SHOTS = process.env.ACTIVATION_SCREENSHOTS ?? fs.mkdtempSync(path.join(os.tmpdir(), 'activation-page-'));
fs.mkdirSync(SHOTS, { recursive: true });
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dddice-activate-'));
test.after.always(() => fs.rmSync(tmp, { recursive: true, force: true }));

type Sdk = typeof import('dddice-js');

/** The SDK's Node build with its REST host pointed at the test server (docs/sdk.md's APP_URL). */
async function pointedSdk(url: string): Promise<Sdk> {
  const bundle = path.join(path.dirname(createRequire(import.meta.url).resolve('dddice-js')), 'dddice-latest.node.mjs');
  const from = 'APP_URL:"https://dddice.com"';
  const source = fs.readFileSync(bundle, 'utf8');
  if (source.split(from).length !== 2) throw new Error(`${bundle}: "${from}" not found once (not dddice-js 0.19.34-974?)`);
  const file = path.join(tmp, 'dddice-latest.node.mjs');
  fs.writeFileSync(file, source.replace(from, `APP_URL:${JSON.stringify(url)}`));
  return (await import(pathToFileURL(file).href)) as Sdk;
}

test("the SDK activates, a person approves the code in Chromium, the SDK's poll gets a working key", async (t) => {
  t.timeout(120_000);
  const username = `gm${Date.now() % 100_000}`;
  const password = 'a table of dice';
  await new WebClient(ctx.server.url, '127.0.0.1').signUp(username, password);

  // The integration: no key, an app name, and the SDK's own activate and poll.
  const sdk = await pointedSdk(ctx.server.url);
  const api = new sdk.ThreeDDiceAPI(undefined, 'Owlbear Rodeo');
  const activation = await api.user.activate();
  t.regex(activation.code, /^[ABCDEFGHJKMNPQRSTUVWXYZ2-9]{6}$/);
  t.true(Date.parse(activation.expiresAt) > Date.now());
  const polled: { outcome: string | Error | null } = { outcome: null };
  const keyPromise = activation.apiKey.then(
    (key): string | Error => (polled.outcome = key),
    (err: Error): string | Error => (polled.outcome = err),
  );

  // The person: /activate while signed out goes through sign-in and back.
  const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  watchPage(page, logs);
  await page.goto(`${ctx.server.url}/activate`);
  await page.waitForURL('**/signin?next=*');
  // A person without an account would sign up from here, and come back all the same.
  t.is(await page.getByRole('link', { name: 'Create an account' }).getAttribute('href'), `/signup?next=${encodeURIComponent('/activate')}`);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/activate');
  await page.getByRole('heading', { name: 'Connect an integration' }).waitFor();
  await checkPage(t, page, 'activate-enter', { shots: SHOTS });

  // Typed as read off the integration's screen: lower case, in two halves.
  await page.getByLabel('Code').click();
  await page.keyboard.type(`${activation.code.slice(0, 3).toLowerCase()} ${activation.code.slice(3).toLowerCase()}`);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByText(`Owlbear Rodeo asks to roll dice as ${username}.`).waitFor();
  t.true(await page.getByText(activation.code, { exact: true }).isVisible(), 'the code is shown back');
  await checkPage(t, page, 'activate-confirm', { shots: SHOTS });
  t.is(polled.outcome, null, 'nothing handed out before Approve');

  await page.getByRole('button', { name: 'Approve' }).click();
  await page.getByRole('heading', { name: 'Integration connected' }).waitFor();
  const said = await page.getByRole('status').first().textContent();
  t.is(said, `Owlbear Rodeo can now roll as ${username}; you can revoke its key in Developer settings.`);
  await checkPage(t, page, 'activate-done', { shots: SHOTS });

  // The SDK's next poll (within 5 s) resolves with the key, which works on the API as that person.
  const outcome = await keyPromise;
  if (outcome instanceof Error) return t.fail(`the SDK's poll failed: ${outcome.message}`);
  const key = outcome;
  t.regex(key, /^dk_[\w-]{43}$/);
  const me = await ctx.server.api.as(key).get('/user');
  t.is(me.status, 200);
  t.is(me.body.data.username, username);

  // In the developer settings, under the integration's name, revocable.
  await page.getByRole('link', { name: 'Developer settings' }).click();
  await page.waitForURL('**/account');
  await page.getByRole('button', { name: `Revoke key Owlbear Rodeo (${key.slice(0, 11)})` }).waitFor();
  await context.close();
  t.log(`screenshots: ${SHOTS}`);
});
