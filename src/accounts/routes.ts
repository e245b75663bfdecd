import express, { Router, type Request, type Response } from 'express';
import { AppError, NotFoundError, RateLimitError } from '../errors';
import type { AppDeps } from '../http/deps';
import { failOpen } from '../http/rateLimit';
import { PRIVATE_PAGE_HEADERS } from '../pages/shell';
import { changePassword } from './changePassword';
import { claimGuest } from './claimGuest';
import { checkCsrf, csrfTokenFor } from './csrf';
import { createDeveloperKey, listDeveloperKeys, revokeDeveloperKey } from './developerKeys';
import { accountAssets } from './page/assets';
import { renderShell } from './page/shell';
import type { PageState } from './page/state';
import { claimForm, createKeyForm, credentialsForm, passwordForm, readForm, revokeKeyForm } from './schema';
import { SESSION_COOKIE, cookieOptions, currentSession, endSession, startSession, type WebSession } from './sessions';
import { signIn } from './signIn';
import { signInAttempts } from './signInAttempts';
import { signUp } from './signUp';
import { DEFAULT_NEXT, nextPath } from './nextPath';

/**
 * The account pages: /signup, /signin, /signout, /claim (a guest keeps its account) and /account (the
 * developer settings: API keys, password). Forms post application/x-www-form-urlencoded with a CSRF
 * token (csrf.ts); a refused form shows the page again with the error's sentence and status. The
 * session these pages keep never authorises /api/1.0 (its `auth` reads Bearer keys only).
 */

/** Not framed by any site (the pages have buttons that revoke keys and end sessions), never cached (CSRF tokens, a new key). */
const HEADERS = PRIVATE_PAGE_HEADERS;

type Page = Omit<PageState, 'csrf' | 'signupAllowed' | 'signedInAs'>;

const field = (body: unknown, name: string, max = 64) => {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value.slice(0, max) : undefined;
};

/** The page's `next` when it is a path of this site other than the default (nextPath.ts). */
const nextOf = (value: unknown): { next?: string } => {
  const next = nextPath(value);
  return next === DEFAULT_NEXT ? {} : { next };
};

export function accountRoutes(deps: AppDeps): Router {
  const router = Router();
  const attempt = signInAttempts(deps);
  // Small bodies: the largest form is two passwords and a key.
  const forms = express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 10 });
  // Each account costs an argon2 hash and a row: as many per address as guests (GUESTS_PER_HOUR).
  // Counted inside the form's handling (after its CSRF check), so a refusal is the page with its sentence.
  const limits = failOpen(deps.rateLimitStore, deps.logger);
  const newAccount = async (req: Request) => {
    const counted = await limits.hit(`signup:${req.ip ?? 'unknown'}`, 3_600_000, deps.config.guestsPerHour);
    if (counted && counted.count > deps.config.guestsPerHour) throw new RateLimitError(Math.max(1, Math.ceil(counted.resetMs / 1000)));
  };

  async function render(req: Request, res: Response, session: WebSession | null, page: Page, status = 200) {
    const [csrf, assets] = await Promise.all([csrfTokenFor(req, res, session), accountAssets()]);
    res
      .status(status)
      .set(HEADERS)
      .send(renderShell({ ...page, csrf, signupAllowed: deps.config.allowSignup, ...(session ? { signedInAs: session.user.username } : {}) }, assets.version));
  }

  type NewKey = NonNullable<PageState['account']>['newKey'];
  async function accountPage(session: WebSession, said: { error?: string; notice?: string } = {}, newKey?: NewKey): Promise<Page> {
    const keys = await listDeveloperKeys(session.user);
    return { view: 'account', ...said, account: { username: session.user.username, name: session.user.name, keys, ...(newKey ? { newKey } : {}) } };
  }

  /**
   * A form's POST: CSRF first, then `run`. A refusal the person can act on (AppError) shows `view` again
   * with its sentence; anything else is the error handler's.
   */
  const post = (view: Page['view'], run: (req: Request, res: Response, session: WebSession | null) => Promise<void>) => async (req: Request, res: Response) => {
    const session = await currentSession(req);
    try {
      await checkCsrf(req, session);
      await run(req, res, session);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      if (err.headers) res.set(err.headers);
      const page: Page =
        view === 'account' && session
          ? await accountPage(session, { error: err.message })
          : { view: view === 'account' ? 'signin' : view, error: err.message, username: field(req.body, 'username'), ...nextOf(field(req.body, 'next', 4096)) };
      await render(req, res, session, page, err.status);
    }
  };

  router.get('/accounts/assets/:file', async (req, res) => {
    const built = await accountAssets();
    const file = req.params.file;
    if (file !== 'accounts.js' && file !== 'accounts.css') throw new NotFoundError('The account pages have no such asset.');
    res
      .set({
        'Content-Type': file === 'accounts.js' ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8',
        'Cache-Control': req.query.v === built.version ? 'public, max-age=31536000, immutable' : 'no-cache',
        'X-Content-Type-Options': 'nosniff',
      })
      .send(file === 'accounts.js' ? built.js : built.css);
  });

  router.get('/signup', async (req, res) => {
    const session = await currentSession(req);
    if (session) return res.redirect(303, nextPath(req.query.next));
    await render(req, res, null, {
      view: 'signup',
      ...nextOf(req.query.next),
      ...(deps.config.allowSignup ? {} : { error: 'Sign-up is turned off on this server: ask its operator for an account.' }),
    });
  });
  router.post(
    '/signup',
    forms,
    post('signup', async (req, res) => {
      const { username, password } = readForm<{ username: string; password: string }>(credentialsForm, req.body);
      await newAccount(req);
      const user = await signUp(deps.config.allowSignup, username, password);
      await startSession(req, res, user);
      res.redirect(303, nextPath(field(req.body, 'next', 4096)));
    }),
  );

  router.get('/signin', async (req, res) => {
    const session = await currentSession(req);
    if (session) return res.redirect(303, nextPath(req.query.next));
    await render(req, res, null, {
      view: 'signin',
      ...nextOf(req.query.next),
      ...(req.query.done === 'password' ? { notice: 'Your password is changed, and every browser was signed out: sign in with the new one.' } : {}),
    });
  });
  router.post(
    '/signin',
    forms,
    post('signin', async (req, res, session) => {
      const { username, password } = readForm<{ username: string; password: string }>(credentialsForm, req.body);
      const user = await signIn(attempt, req.ip ?? 'unknown', username, password);
      if (session) await endSession(req, res);
      await startSession(req, res, user);
      res.redirect(303, nextPath(field(req.body, 'next', 4096)));
    }),
  );

  router.post(
    '/signout',
    forms,
    post('signin', async (req, res) => {
      await endSession(req, res);
      res.redirect(303, '/signin');
    }),
  );

  router.get('/claim', async (req, res) => {
    await render(req, res, await currentSession(req), { view: 'claim', ...nextOf(req.query.next) });
  });
  router.post(
    '/claim',
    forms,
    post('claim', async (req, res, session) => {
      const { key, username, password } = readForm<{ key: string; username: string; password: string }>(claimForm, req.body);
      await newAccount(req);
      const user = await claimGuest(key, username, password);
      if (session) await endSession(req, res);
      await startSession(req, res, user);
      res.redirect(303, nextPath(field(req.body, 'next', 4096)));
    }),
  );

  router.get('/account', async (req, res) => {
    const session = await currentSession(req);
    // A cookie naming no live session (ended elsewhere, expired) is dropped with the redirect.
    if (!session) return res.clearCookie(SESSION_COOKIE, cookieOptions(req)).redirect(303, '/signin');
    await render(req, res, session, await accountPage(session));
  });
  const signedIn = (run: (req: Request, res: Response, session: WebSession) => Promise<void>) =>
    post('account', async (req, res, session) => {
      if (!session) return void res.redirect(303, '/signin');
      await run(req, res, session);
    });
  router.post(
    '/account/keys',
    forms,
    signedIn(async (req, res, session) => {
      const { label } = readForm<{ label: string }>(createKeyForm, req.body);
      const { key, prefix } = await createDeveloperKey(session.user, label);
      // Answered here, not after a redirect: the key is shown this once and kept nowhere.
      await render(req, res, session, await accountPage(session, { notice: `Key "${label}" created.` }, { key, prefix, label }), 201);
    }),
  );
  router.post(
    '/account/keys/revoke',
    forms,
    signedIn(async (req, res, session) => {
      const { prefix } = readForm<{ prefix: string }>(revokeKeyForm, req.body);
      await revokeDeveloperKey(session.user, prefix);
      res.redirect(303, '/account');
    }),
  );
  router.post(
    '/account/password',
    forms,
    signedIn(async (req, res, session) => {
      const { current, password } = readForm<{ current: string; password: string }>(passwordForm, req.body);
      await changePassword(attempt, req.ip ?? 'unknown', session.user, current, password);
      await endSession(req, res);
      res.redirect(303, '/signin?done=password');
    }),
  );

  return router;
}
