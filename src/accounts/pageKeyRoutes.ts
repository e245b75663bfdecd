import { Router, type Request } from 'express';
import { ForbiddenError, RateLimitError, UnauthorizedError } from '../errors';
import type { AppDeps } from '../http/deps';
import { failOpen } from '../http/rateLimit';
import { checkCsrfHeader } from './csrf';
import { issuePageKey } from './pageKey';
import { currentSession } from './sessions';

/**
 * POST /account/page-key: the signed-in browser's page key (pageKey.ts), for the pages' scripts
 * (src/pages/client/pageKey.ts). Three locks, each enough against another site: the request must come
 * from a page of this origin (Origin, and Sec-Fetch-Site where the browser sends it), carry the
 * session's CSRF token in X-CSRF-Token (a header, so also a CORS preflight no other origin passes:
 * this path is not among CORS_PATHS), and the answer is JSON another origin cannot read. The key is
 * answered once, `Cache-Control: no-store`.
 */

/** Page keys one session may ask for in an hour: a page load asks at most once, and only when it has none. */
const PAGE_KEYS_PER_HOUR = 60;

/**
 * Whether the request came from a page of this server's own origin: `Sec-Fetch-Site: same-origin`
 * where the browser sends it, and an `Origin` naming this server: the host the request was addressed to,
 * PUBLIC_URL, or the same name when a proxy passed a Host without the port (nginx's `$host`, as
 * deploy/nginx.conf does).
 */
function fromThisOrigin(req: Request, publicUrl: string | null): boolean {
  const site = req.get('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin') return false;
  const origin = req.get('origin');
  if (!origin || origin === 'null') return false;
  let from: URL;
  try {
    from = new URL(origin);
  } catch {
    return false;
  }
  if (publicUrl && from.origin === new URL(publicUrl).origin) return true;
  const host = (req.get('host') ?? '').toLowerCase();
  if (from.host === host) return true;
  return !/:\d+$/.test(host) && from.hostname === host;
}

export function pageKeyRoutes(deps: AppDeps): Router {
  const router = Router();
  const limits = failOpen(deps.rateLimitStore, deps.logger);

  router.post('/account/page-key', async (req, res) => {
    if (!fromThisOrigin(req, deps.config.publicUrl)) throw new ForbiddenError('A page key is only given to pages of this site.');
    const session = await currentSession(req);
    if (!session) throw new UnauthorizedError('You are not signed in: the pages use the guest key this browser keeps, or sign in.');
    await checkCsrfHeader(req, session);
    const counted = await limits.hit(`pagekey:${session.sessionId}`, 3_600_000, PAGE_KEYS_PER_HOUR);
    if (counted && counted.count > PAGE_KEYS_PER_HOUR) throw new RateLimitError(Math.max(1, Math.ceil(counted.resetMs / 1000)));
    const { key, expiresAt } = await issuePageKey(session);
    res.status(201).set({ 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' }).json({ key, expires_at: expiresAt });
  });

  return router;
}
