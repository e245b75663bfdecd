/**
 * The API key this browser's pages call /api/1.0 with (browser module, bundled into each page's
 * script). The session cookie never authorises the API, so a page holds a Bearer key like every
 * client:
 * - signed in (the page's <body> carries `data-session` and `data-csrf`: src/pages/session.ts): the
 *   page key made for this session (POST /account/page-key, src/accounts/pageKey.ts), kept in
 *   localStorage with the session's tag so every tab of the session shares one; it dies with the
 *   session (sign-out, password change);
 * - otherwise: the guest key the board keeps in localStorage (`openDice.apiKey`), which
 *   `ensurePageKey()` creates (POST /api/1.0/user) when there is none.
 */

/** Where the board keeps the guest's key (also read by /claim, src/accounts/page/main.ts). */
export const GUEST_KEY_STORAGE = 'openDice.apiKey';
/** Where the signed-in session's page key is kept, with the session's tag: `{"session": tag, "key": key}`. */
export const PAGE_KEY_STORAGE = 'openDice.pageKey';

interface Kept {
  session: string;
  key: string;
}

/** The page's session, as the server wrote it on <body>; null when nobody is signed in. */
export function pageSession(): { tag: string; csrf: string; user: string } | null {
  const data = document.body.dataset;
  return data.session && data.csrf ? { tag: data.session, csrf: data.csrf, user: data.user ?? '' } : null;
}

function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    // Storage refused (a browser's privacy setting): the page still works, asking each time.
    return null;
  }
}

function keptPageKey(tag: string): string | null {
  try {
    const kept = JSON.parse(storage()?.getItem(PAGE_KEY_STORAGE) ?? 'null') as Kept | null;
    return kept && kept.session === tag && typeof kept.key === 'string' ? kept.key : null;
  } catch {
    return null;
  }
}

let asking: Promise<string | null> | null = null;

/** A new page key for this session, or null when the server says the session is over. */
async function askForPageKey(session: { tag: string; csrf: string }): Promise<string | null> {
  const res = await fetch('/account/page-key', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'X-CSRF-Token': session.csrf, Accept: 'application/json' },
  });
  if (res.status === 401 || res.status === 403) return null;
  if (!res.ok) throw new Error(`This page could not get its key (HTTP ${res.status}): reload the page to try again.`);
  const { key } = (await res.json()) as { key: string };
  storage()?.setItem(PAGE_KEY_STORAGE, JSON.stringify({ session: session.tag, key } satisfies Kept));
  return key;
}

/**
 * The key this browser uses: the signed-in session's page key (asked for once per session), else
 * the kept guest key, else null. A session that ended meanwhile falls back to the guest key.
 */
export async function pageKey(): Promise<string | null> {
  const session = pageSession();
  if (session) {
    const kept = keptPageKey(session.tag);
    if (kept) return kept;
    asking ??= askForPageKey(session).finally(() => (asking = null));
    const made = await asking;
    if (made) return made;
  }
  return storage()?.getItem(GUEST_KEY_STORAGE) ?? null;
}

/** pageKey(), and when there is none, a new guest (POST /api/1.0/user) whose key this browser keeps. */
export async function ensurePageKey(): Promise<string> {
  const key = await pageKey();
  if (key) return key;
  const res = await fetch('/api/1.0/user', { method: 'POST', headers: { Accept: 'application/json' } });
  const body = (await res.json().catch(() => null)) as { data?: unknown; type?: string } | null;
  if (!res.ok || typeof body?.data !== 'string') {
    const message = (body?.data as { message?: unknown } | undefined)?.message;
    throw new Error(typeof message === 'string' ? message : `No guest could be made (HTTP ${res.status}).`);
  }
  storage()?.setItem(GUEST_KEY_STORAGE, body.data);
  return body.data;
}

/**
 * Forget a key the API refused (401: revoked, expired): the next pageKey() asks for a new page key
 * (signed in) or finds no guest key.
 */
export function forgetPageKey(key: string): void {
  const store = storage();
  if (!store) return;
  try {
    const kept = JSON.parse(store.getItem(PAGE_KEY_STORAGE) ?? 'null') as Kept | null;
    if (kept?.key === key) store.removeItem(PAGE_KEY_STORAGE);
  } catch {
    store.removeItem(PAGE_KEY_STORAGE);
  }
  if (store.getItem(GUEST_KEY_STORAGE) === key) store.removeItem(GUEST_KEY_STORAGE);
}
