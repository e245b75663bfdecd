import { UnauthorizedError } from '../errors';
import { announceRevokedKeys, newKeyMaterial } from '../users/apiKeys';
import type { WebSession } from './sessions';
import { insertPageKey } from './store/sessions';

/**
 * The page key: the API key a signed-in browser's pages (the home page, the board) call /api/1.0
 * with, since the session cookie never authorises the API. It is an ordinary key of the user, bound
 * to the session (api_keys.web_session_id) and expiring with it; it is revoked in the transaction that
 * ends the session (sign-out, password change, a 21st browser: store/sessions.ts), and its open sockets
 * close as for any revoked key. The developer settings list it as "Web session"; it is not counted
 * against MAX_LIVE_KEYS (users/store.ts countQuotaKeys).
 *
 * The browser keeps one per session (localStorage, src/pages/client/pageKey.ts) and asks again only
 * when it has none for this session or it was refused: a session holds at most PAGE_KEYS_PER_SESSION
 * live ones (a few tabs asking at once), the oldest revoked beyond that.
 */

export const PAGE_KEY_LABEL = 'Web session';
export const PAGE_KEYS_PER_SESSION = 4;

export async function issuePageKey(session: WebSession): Promise<{ key: string; expiresAt: string }> {
  const { key, prefix, keyHash } = newKeyMaterial();
  const made = await insertPageKey(session.sessionId, { userId: session.user.id, name: PAGE_KEY_LABEL, prefix, keyHash }, Date.now(), PAGE_KEYS_PER_SESSION);
  if (!made) throw new UnauthorizedError('You are not signed in (any more): sign in again.');
  await announceRevokedKeys(made.revoked);
  return { key, expiresAt: new Date(session.expiresMs).toISOString() };
}
