import { Router } from 'express';
import type { AppDeps } from './deps';
import { db } from '../db';
import { isCluster, type RedisClient } from '../lib/redis';

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
    await Promise.all([check('database', db().ping()), deps.redis ? check('redis', redisReady(deps.redis)) : Promise.resolve()]);
    const ready = Object.values(checks).every((c) => c === 'ok');
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'unavailable', checks });
  });
  return router;
}

/**
 * One Redis server: it answers PING. A cluster: the cluster as a whole serves every slot, as a master
 * that answers says (`CLUSTER INFO`: cluster_state:ok, no slot in failure), asking the masters of the
 * client's slot map one after the other (each within 1 s): one dead master, until its replica takes
 * over, is the cluster's state, not a coin toss on which node was asked.
 */
async function redisReady(redis: RedisClient): Promise<void> {
  if (!isCluster(redis)) {
    await redis.ping();
    return;
  }
  let last: Error = new Error('no master known');
  for (const node of redis.nodes('master')) {
    let info: string;
    try {
      info = String(await withTimeout(node.cluster('INFO') as Promise<unknown>, 1000));
    } catch (err) {
      last = err as Error;
      continue;
    }
    const field = (name: string) => new RegExp(`${name}:(\\w+)`).exec(info)?.[1];
    if (field('cluster_state') === 'ok' && field('cluster_slots_assigned') === '16384' && field('cluster_slots_fail') === '0') return;
    throw new Error(`the cluster does not serve every slot (cluster_state:${field('cluster_state')}, cluster_slots_fail:${field('cluster_slots_fail')})`);
  }
  throw last;
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
