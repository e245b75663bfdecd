import { Router } from 'express';
import type { AppDeps } from './deps';
import { db } from '../db';

/** Liveness (the process answers) and readiness (its database, and Redis when configured, answer). */
export function healthRoutes(deps: AppDeps): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    // Anyone may ask, so the answer says only what is down; the reason (hosts, ports) goes to the log.
    const checks: Record<string, 'ok' | 'unreachable'> = {};
    const check = (name: string, probe: Promise<unknown>) =>
      withTimeout(probe, 2000).then(
        () => (checks[name] = 'ok'),
        (e: Error) => {
          checks[name] = 'unreachable';
          deps.logger.warn({ check: name, err: e.message }, 'readiness check failed');
        },
      );
    await Promise.all([check('database', db().ping()), deps.redis ? check('redis', deps.redis.ping()) : Promise.resolve()]);
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
