import express, { Router, type Request, type Response } from 'express';
import { AppError, GoneError, NotFoundError, ValidationError } from '../errors';
import type { AppDeps } from '../http/deps';
import { one } from '../http/envelope';
import { rateLimit } from '../http/rateLimit';
import { PAGE_HEADERS } from '../board';
import { checkCsrf, csrfTokenFor } from '../accounts/csrf';
import { accountAssets } from '../accounts/page/assets';
import { currentSession, type WebSession } from '../accounts/sessions';
import { readForm } from '../accounts/schema';
import { approve, findPending } from './approve';
import { codeAttempts } from './attempts';
import { integrationName, normalizeCode, secretFromHeader } from './codes';
import { createActivation } from './create';
import { activateAssets } from './page/assets';
import { renderShell } from './page/shell';
import type { ActivatePageState } from './page/state';
import { pollActivation } from './poll';
import { presentNewActivation, presentPoll } from './present';
import { approveForm, NOT_A_CODE } from './schema';

/**
 * Activation codes, dddice's device login (docs/accounts.md, "Activation codes"):
 * - the API, mounted at /api/1.0/activate without a key: POST makes a code and a secret, GET
 *   /{code} with `Authorization: Secret <secret>` polls until a person approved it, then answers
 *   a new API key once;
 * - the page /activate, where a signed-in person types the code, sees which integration asks, and
 *   approves it (a form with the session's CSRF token).
 */

const MINUTE_MS = 60_000;
/**
 * Polls of one code per minute. The SDK polls every 5 s (12 a minute); this leaves room for a client
 * that polls faster, and bounds what one code can cost. Per address, the unauthenticated limit
 * (RATE_LIMIT_PER_MINUTE) bounds a flood across codes.
 */
export const POLLS_PER_CODE_PER_MINUTE = 60;

/** The account pages' headers (accounts/routes.ts): not framed, never cached (CSRF tokens). */
const HEADERS = {
  ...PAGE_HEADERS,
  'Content-Security-Policy': `${PAGE_HEADERS['Content-Security-Policy']}; frame-ancestors 'none'`,
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store',
};

/** POST /activate and GET /activate/{code}, mounted at /api/1.0/activate before `auth` (no key). */
export function activationApiRoutes(deps: AppDeps): Router {
  const router = Router();
  const perAddress = (req: Request) => req.ip ?? 'unknown';
  const creations = rateLimit(
    deps.rateLimitStore,
    { name: 'activate', limit: deps.config.activationsPerHour, windowMs: 60 * MINUTE_MS, key: perAddress },
    deps.logger,
  );
  const pollsByAddress = rateLimit(
    deps.rateLimitStore,
    { name: 'activate-polls', limit: deps.config.rateLimitPerMinute, windowMs: MINUTE_MS, key: perAddress },
    deps.logger,
  );
  const pollsByCode = rateLimit(
    deps.rateLimitStore,
    { name: 'activate-code', limit: POLLS_PER_CODE_PER_MINUTE, windowMs: MINUTE_MS, key: (req) => String(req.params.code).slice(0, 32).toUpperCase() },
    deps.logger,
  );

  router.post('/', creations, async (req, res) => {
    const created = await createActivation(integrationName(req.headers['x-extension']));
    // The secret is in this answer only.
    res
      .status(201)
      .set('Cache-Control', 'no-store')
      .json(one('activate', presentNewActivation(created)));
  });

  router.get('/:code', pollsByAddress, pollsByCode, async (req, res) => {
    const answer = await pollActivation(String(req.params.code), secretFromHeader(req.headers.authorization));
    res.set('Cache-Control', 'no-store').json(one('activate', presentPoll(answer)));
  });
  return router;
}

/** The /activate page and its assets. */
export function activationPageRoutes(deps: AppDeps): Router {
  const router = Router();
  const attempt = codeAttempts(deps);
  const forms = express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 10 });

  type Page = Omit<ActivatePageState, 'csrf' | 'signedInAs'>;
  async function render(req: Request, res: Response, session: WebSession, page: Page, status = 200) {
    const [csrf, mine, accounts] = await Promise.all([csrfTokenFor(req, res, session), activateAssets(), accountAssets()]);
    res
      .status(status)
      .set(HEADERS)
      .send(renderShell({ ...page, csrf, signedInAs: session.user.username }, { accounts: accounts.version, activate: mine.version }));
  }

  /** Signed out: sign in (or up) first, then back here with the code. */
  const signInFirst = (res: Response, code: string | null) => {
    const back = `/activate${code ? `?code=${code}` : ''}`;
    res.redirect(303, `/signin?next=${encodeURIComponent(back)}`);
  };

  /** The code typed, looked up as one counted guess: the pending activation, or an AppError with the page's sentence. */
  async function lookUp(req: Request, session: WebSession, typed: unknown) {
    const code = normalizeCode(typed);
    if (!code) throw new ValidationError([{ path: 'code', message: NOT_A_CODE }], NOT_A_CODE);
    const found = await attempt(
      session.user.id,
      req.ip ?? 'unknown',
      () => findPending(code),
      (r) => 'pending' in r || r.found,
    );
    if ('refusal' in found) throw found.found ? new GoneError(found.refusal) : new NotFoundError(found.refusal);
    return found;
  }

  /** A refusal the person can act on: the code form again, with the sentence and the status. */
  async function refused(req: Request, res: Response, session: WebSession, err: unknown, typed: unknown) {
    if (!(err instanceof AppError)) throw err;
    if (err.headers) res.set(err.headers);
    await render(req, res, session, { step: 'enter', error: err.message, code: typeof typed === 'string' ? typed.slice(0, 32) : '' }, err.status);
  }

  router.get('/activate', async (req, res) => {
    const typed = req.query.code;
    const session = await currentSession(req);
    if (!session) return signInFirst(res, normalizeCode(typed));
    if (typed === undefined || typed === '') return render(req, res, session, { step: 'enter' });
    try {
      const { pending } = await lookUp(req, session, typed);
      await render(req, res, session, { step: 'confirm', code: pending.code, integration: pending.integration, expiresAt: pending.expiresAt });
    } catch (err) {
      await refused(req, res, session, err, typed);
    }
  });

  router.post('/activate', forms, async (req, res) => {
    const session = await currentSession(req);
    const typed = (req.body as Record<string, unknown> | undefined)?.code;
    if (!session) return signInFirst(res, normalizeCode(typed));
    try {
      await checkCsrf(req, session);
      const { code } = readForm<{ code: string }>(approveForm, req.body);
      const { pending, record } = await lookUp(req, session, code);
      await approve(session.user, record);
      await render(req, res, session, { step: 'done', code: pending.code, integration: pending.integration });
    } catch (err) {
      await refused(req, res, session, err, typed);
    }
  });

  router.get('/activation/assets/:file', async (req, res) => {
    const built = await activateAssets();
    const file = req.params.file;
    if (file !== 'activate.js' && file !== 'activate.css') throw new NotFoundError('The activation page has no such asset.');
    res
      .set({
        'Content-Type': file === 'activate.js' ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8',
        'Cache-Control': req.query.v === built.version ? 'public, max-age=31536000, immutable' : 'no-cache',
        'X-Content-Type-Options': 'nosniff',
      })
      .send(file === 'activate.js' ? built.js : built.css);
  });
  return router;
}
