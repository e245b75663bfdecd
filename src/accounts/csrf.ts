import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { ForbiddenError } from '../errors';
import { cookieOf, cookieOptions, type WebSession } from './sessions';
import { csrfSigningKey } from './store/secrets';

/**
 * CSRF tokens for every state-changing form (the `_csrf` field), signed with the server's key
 * (migration 0014's server_secrets, shared by all instances):
 * - signed in: HMAC of the session token's hash, so it lives and dies with the session;
 * - signed out (sign-in, sign-up, claim): a signed double-submit token, HMAC of a random nonce kept in
 *   its own cookie. Another site can neither read the nonce nor forge its signature, and a cookie
 *   planted by a neighbouring host fails the signature.
 * Compared with timingSafeEqual.
 */

export const CSRF_COOKIE = 'dice_csrf';
export const CSRF_FIELD = '_csrf';

async function sign(purpose: string, value: string): Promise<string> {
  return createHmac('sha256', await csrfSigningKey())
    .update(`${purpose}\0${value}`)
    .digest('base64url');
}

/** The token the page's forms carry; sets the signed-out nonce cookie when the browser has none. */
export async function csrfTokenFor(req: Request, res: Response, session: WebSession | null): Promise<string> {
  if (session) return sign('session', session.tokenHash);
  let nonce = cookieOf(req, CSRF_COOKIE);
  if (!nonce || !/^[\w-]{22,64}$/.test(nonce)) {
    nonce = randomBytes(18).toString('base64url');
    res.cookie(CSRF_COOKIE, nonce, cookieOptions(req));
  }
  return sign('anon', nonce);
}

/** Refuse (403) a form whose token does not match this browser's session or nonce. */
export async function checkCsrf(req: Request, session: WebSession | null): Promise<void> {
  const body = req.body as Record<string, unknown> | undefined;
  await checkToken(typeof body?.[CSRF_FIELD] === 'string' ? (body[CSRF_FIELD] as string) : '', req, session);
}

/** The header a page's script sends its token in (a form sends `_csrf`). */
export const CSRF_HEADER = 'x-csrf-token';

/** Refuse (403) a script's request (fetch) whose CSRF_HEADER does not match this browser's session or nonce. */
export async function checkCsrfHeader(req: Request, session: WebSession | null): Promise<void> {
  const sent = req.get(CSRF_HEADER);
  await checkToken(typeof sent === 'string' && sent.length <= 200 ? sent : '', req, session);
}

async function checkToken(sent: string, req: Request, session: WebSession | null): Promise<void> {
  let expected: string | null = null;
  if (session) expected = await sign('session', session.tokenHash);
  else {
    const nonce = cookieOf(req, CSRF_COOKIE);
    if (nonce) expected = await sign('anon', nonce);
  }
  const a = Buffer.from(sent);
  const b = Buffer.from(expected ?? '');
  if (expected === null || a.length !== b.length || !timingSafeEqual(a, b)) {
    throw new ForbiddenError('This form has expired or did not come from this site: reload the page and try again.');
  }
}
