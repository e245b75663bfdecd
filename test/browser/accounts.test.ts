import test from 'ava';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { useServer } from '../helpers/server';
import { useChromium, watchPage } from './chromium';
import { checkPage } from './pageChecks';

/**
 * The account pages as a person uses them, by clicks and typing: sign up, sign in in a fresh browser
 * (by keyboard alone), make a key on /account, copy it, see it work, revoke it. axe-core checks every
 * page (no serious or critical violation), at 1280 and 375 px wide, where nothing may scroll sideways.
 * Screenshots go to $ACCOUNT_SCREENSHOTS (default: a temporary directory), to be looked at.
 */
const ctx = useServer(test);
const chrome = useChromium(test);
const logs: string[] = [];
test.afterEach.always((t) => {
  if (!t.passed && logs.length) t.log(logs.join('\n'));
});

const SHOTS = process.env.ACCOUNT_SCREENSHOTS ?? fs.mkdtempSync(path.join(os.tmpdir(), 'account-pages-'));
fs.mkdirSync(SHOTS, { recursive: true });

async function newPage(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  watchPage(page, logs);
  return page;
}

test('sign up, sign in in a fresh browser by keyboard, create a key, copy it, revoke it', async (t) => {
  t.timeout(120_000);
  const username = `player${Date.now() % 100_000}`;
  const password = 'a table of dice';

  // A first browser signs up.
  const first = await chrome.browser.newContext({ viewport: { width: 1280, height: 800 } });
  const signUp = await newPage(first);
  await signUp.goto(`${ctx.server.url}/signup`);
  await checkPage(t, signUp, 'signup', { shots: SHOTS });
  await signUp.getByLabel('Username').fill(username);
  await signUp.getByLabel('Password').fill(password);
  await signUp.getByRole('button', { name: 'Sign up' }).click();
  await signUp.waitForURL('**/account');
  await signUp.getByText(`Signed in as ${username}.`).waitFor();
  await first.close();

  // A fresh browser signs in with the keyboard alone.
  const second = await chrome.browser.newContext({ viewport: { width: 1280, height: 800 }, permissions: ['clipboard-read', 'clipboard-write'] });
  const page = await newPage(second);
  await page.goto(`${ctx.server.url}/signin`);
  await checkPage(t, page, 'signin', { shots: SHOTS });
  await page.getByLabel('Username').focus();
  await page.keyboard.type(username);
  await page.keyboard.press('Tab');
  await page.keyboard.type(password);
  await page.keyboard.press('Enter');
  await page.waitForURL('**/account');
  await checkPage(t, page, 'account-empty', { shots: SHOTS });

  // A key: made, shown once, copied, working on the API.
  await page.getByLabel('Label').fill('Streaming <overlay>');
  await page.getByRole('button', { name: 'Create key' }).click();
  const shown = page.locator('#new-key');
  await shown.waitFor();
  const key = (await shown.textContent())!;
  t.regex(key, /^dk_[\w-]{43}$/);
  await page.getByRole('button', { name: 'Copy key' }).click();
  await page.getByText('Copied.').waitFor();
  t.is(await page.evaluate('navigator.clipboard.readText()'), key);
  t.is((await ctx.server.api.as(key).get('/user')).status, 200);
  await checkPage(t, page, 'account-new-key', { shots: SHOTS });

  // Revoked from the list: the API refuses it at once.
  await page.goto(`${ctx.server.url}/account`);
  t.is(await page.locator('#new-key').count(), 0, 'the key is not shown again');
  await page.getByRole('button', { name: /^Revoke key Streaming <overlay>/ }).click();
  await page.getByText('No keys yet.').waitFor();
  t.is((await ctx.server.api.as(key).get('/user')).status, 401);

  // The claim page, for a browser that plays as a guest.
  const guest = await ctx.server.newUser();
  const third = await chrome.browser.newContext({ viewport: { width: 1280, height: 800 } });
  await third.addInitScript((k) => localStorage.setItem('openDice.apiKey', k), guest.key);
  const claim = await newPage(third);
  await claim.goto(`${ctx.server.url}/claim`);
  await checkPage(t, claim, 'claim', { shots: SHOTS });
  await claim.getByLabel('Username').fill(`${username}x`);
  await claim.getByLabel('Password').fill(password);
  await claim.getByRole('button', { name: 'Keep my account' }).click();
  await claim.waitForURL('**/account');
  t.true((await ctx.server.api.as(guest.key).get('/user')).body.data.is_registered);
  await second.close();
  await third.close();
  t.log(`screenshots: ${SHOTS}`);
});
