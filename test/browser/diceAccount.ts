import type { Page } from 'playwright-core';
import { Api } from '../helpers/http';

/**
 * A person on the dice pages: signed out, `/dice/...` sends the browser to sign in; signing up from
 * there comes back to `where`. Answers an API client with the session's page key (the account's).
 */
export async function signUpFor(page: Page, url: string, where: string, username: string): Promise<void> {
  await page.goto(`${url}${where}`);
  await page.waitForURL(/\/signin\?next=/);
  await page.goto(`${url}/signup?next=${encodeURIComponent(where)}`);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill('dice under the table');
  await page.getByRole('button', { name: 'Sign up' }).click();
  await page.waitForURL(`${url}${where}`);
}

/** The API as a signed-in dice page calls it: the session's page key, asked for as the page asks (and kept where the page keeps it). */
export async function pageApi(page: Page, url: string): Promise<Api> {
  const key = (await page.evaluate(async () => {
    const kept = JSON.parse(localStorage.getItem('openDice.pageKey') ?? 'null');
    if (kept?.session === document.body.dataset.session) return kept.key;
    const res = await fetch('/account/page-key', { method: 'POST', headers: { 'X-CSRF-Token': document.body.dataset.csrf ?? '', Accept: 'application/json' } });
    const { key } = await res.json();
    localStorage.setItem('openDice.pageKey', JSON.stringify({ session: document.body.dataset.session, key }));
    return key;
  })) as string;
  return new Api(url, key);
}
