import { Router } from 'express';
import type { AppDeps } from '../../http/deps';
import { db } from '../../db';

/** Liveness (the process answers) and readiness (its database, and Redis when configured, answer). */
export function healthRoutes(deps: AppDeps): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const checks: Record<string, 'ok' | string> = {};
    await Promise.all([
      withTimeout(db().ping(), 2000).then(() => (checks.database = 'ok'), (e: Error) => (checks.database = e.message || 'unreachable')),
      deps.redis
        ? withTimeout(deps.redis.ping(), 2000).then(() => (checks.redis = 'ok'), (e: Error) => (checks.redis = e.message || 'unreachable'))
        : Promise.resolve(),
    ]);
    const ready = Object.values(checks).every((c) => c === 'ok');
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'unavailable', checks });
  });
  return router;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    }),
  ]);
}
