import { createHash, randomBytes } from 'node:crypto';
import { parse } from 'cookie';
import type { Request, Response } from 'express';
import { announceRevokedKeys } from '../users/apiKeys';
import type { UserRecord } from '../users/store';
import { deleteSessionByHash, deleteUserSessions, findSessionByHash, insertSession } from './store/sessions';

/**
 * Web sessions: a random token in an HttpOnly, SameSite=Lax cookie (Secure when the request came over
 * https, as the trusted proxies tell: app.ts's `trust proxy`), its sha256 in the database so every
 * instance serves it. A session only ever signs in the account pages: /api/1.0 reads Bearer keys alone.
 */

export const SESSION_COOKIE = 'dice_session';
export const SESSION_DAYS = 30;
const SESSION_MS = SESSION_DAYS * 86_400_000;
/** Browsers one user may be signed in on at once; signing in on one more ends the oldest. */
export const MAX_SESSIONS_PER_USER = 20;

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A cookie's value from the request, or null. */
export function cookieOf(req: Request, name: string): string | null {
  const header = req.headers.cookie;
  if (!header || header.length > 8192) return null;
  const value = parse(header)[name];
  return value && value.length <= 200 ? value : null;
}

export function cookieOptions(req: Request, maxAgeMs?: number) {
  return { httpOnly: true, sameSite: 'lax' as const, secure: req.secure, path: '/', ...(maxAgeMs === undefined ? {} : { maxAge: maxAgeMs }) };
}

/** The request's signed-in session: its user, the token's hash (the CSRF token is made from it), its row and end; or null. */
export interface WebSession {
  user: UserRecord;
  tokenHash: string;
  sessionId: number;
  expiresMs: number;
}

export async function currentSession(req: Request): Promise<WebSession | null> {
  const token = cookieOf(req, SESSION_COOKIE);
  if (!token) return null;
  const tokenHash = hashToken(token);
  const found = await findSessionByHash(tokenHash, Date.now());
  return found && { user: found.user, tokenHash, sessionId: found.sessionId, expiresMs: found.expiresMs };
}

/** Sign this browser in as `user`: a new session and its cookie. */
export async function startSession(req: Request, res: Response, user: Pick<UserRecord, 'id'>): Promise<void> {
  const token = randomBytes(32).toString('base64url');
  const now = Date.now();
  // The sessions this one pushes out (expired, or the oldest beyond the limit) take their page keys.
  await announceRevokedKeys(await insertSession(user.id, hashToken(token), now, now + SESSION_MS, MAX_SESSIONS_PER_USER));
  res.cookie(SESSION_COOKIE, token, cookieOptions(req, SESSION_MS));
}

/**
 * Sign this browser out (its session row goes, so a copied cookie is worthless too). Its page keys
 * are revoked with it, and their open sockets close (users/apiKeys.ts announceRevokedKeys).
 */
export async function endSession(req: Request, res: Response): Promise<void> {
  const token = cookieOf(req, SESSION_COOKIE);
  if (token) await announceRevokedKeys(await deleteSessionByHash(hashToken(token)));
  res.clearCookie(SESSION_COOKIE, cookieOptions(req));
}

/**
 * Every browser signed in as this user is signed out (a password change), and every page key of
 * theirs revoked; answers those keys' ids (the CLI tells the other processes itself).
 */
export async function endAllSessions(userId: number): Promise<number[]> {
  const keyIds = await deleteUserSessions(userId);
  await announceRevokedKeys(keyIds);
  return keyIds;
}
