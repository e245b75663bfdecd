import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { csrfTokenFor } from '../accounts/csrf';
import { currentSession, type WebSession } from '../accounts/sessions';

/**
 * What a page for people tells its script about the browser's session, as `data-*` attributes of
 * <body> (src/pages/shell.ts), read by src/pages/client/pageKey.ts:
 * - `session`: a tag of the session (a hash of its token's hash: it names the session, and proves
 *   nothing), so the script knows whether the page key it keeps was made for this session;
 * - `csrf`: the session's CSRF token, sent in X-CSRF-Token to POST /account/page-key and in the
 *   sign-out form;
 * - `user`: the username, shown in the page's header.
 * Nothing when nobody is signed in: the pages then use the guest key the browser keeps.
 */
export type PageSession = {
  session?: string;
  csrf?: string;
  user?: string;
};

export function sessionTag(session: Pick<WebSession, 'tokenHash'>): string {
  return createHash('sha256').update(`page-session\0${session.tokenHash}`).digest('base64url').slice(0, 22);
}

export async function pageSession(req: Request, res: Response): Promise<PageSession> {
  const session = await currentSession(req);
  if (!session) return {};
  return { session: sessionTag(session), csrf: await csrfTokenFor(req, res, session), user: session.user.username };
}
