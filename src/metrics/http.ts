import { createHash, timingSafeEqual } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Application, Express, Request, RequestHandler } from 'express';
import type { AppDeps } from '../http/deps';
import { AppError } from '../errors';
import { bearerKey } from '../users/auth';
import type { Metrics } from './index';

/** The route label of requests no route answered: unknown paths, and refusals before routing (no key, rate limited). */
export const UNMATCHED = 'unmatched';

/**
 * Every route of the app by its Route object, under its full pattern (`/api/1.0/room/:slug`): the
 * router's mount paths joined with the route's own path. Express leaves `req.route` set to the route
 * that matched, but `req.baseUrl` is reset as the request leaves each router (an error answered by the
 * app's error handler has lost it), so the full pattern is looked up, not rebuilt per request.
 */
export function routePatterns(app: Application): WeakMap<object, string> {
  const patterns = new WeakMap<object, string>();
  type Layer = { route?: { path: unknown }; handle?: { stack?: unknown }; rawPath?: unknown; slash?: boolean };
  const join = (prefix: string, path: unknown) => (typeof path === 'string' ? `${prefix}${path}`.replace(/\/{2,}/g, '/') : `${prefix}${String(path)}`);
  const walk = (stack: Layer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        // A route registered under several paths keeps the first: a pattern never varies per request.
        if (!patterns.has(layer.route))
          patterns.set(layer.route, join(prefix, Array.isArray(layer.route.path) ? layer.route.path[0] : layer.route.path).replace(/(.)\/$/, '$1'));
      } else if (Array.isArray(layer.handle?.stack)) {
        const mount: unknown = Array.isArray(layer.rawPath) ? layer.rawPath[0] : layer.rawPath;
        walk(layer.handle.stack as Layer[], layer.slash ? prefix : join(prefix, mount));
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
  return patterns;
}

interface Cell {
  labels: { route: string; method: string; status: string };
}

const START = Symbol('metricsStart');
type Timed = ServerResponse & { [START]?: number; req: Request };

/**
 * Counts and times every request. Per request: one timestamp, one 'finish' listener (the same
 * function for all), three map lookups, and prom-client's own work; the label objects are made once
 * per (route, method, status) seen.
 */
export function countRequests(metrics: Metrics): RequestHandler {
  let patterns: WeakMap<object, string> | null = null;
  const cells = new Map<string, Map<string, Map<number, Cell>>>();

  const cellOf = (route: string, method: string, status: number): Cell => {
    let byMethod = cells.get(route);
    if (!byMethod) cells.set(route, (byMethod = new Map<string, Map<number, Cell>>()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map<number, Cell>()));
    let cell = byStatus.get(status);
    if (!cell) byStatus.set(status, (cell = { labels: { route, method, status: String(status) } }));
    return cell;
  };

  function onFinish(this: Timed) {
    const seconds = (performance.now() - this[START]!) / 1000;
    const req = this.req;
    // Built on the first answer, when every router has been mounted.
    patterns ??= routePatterns(req.app);
    const matched = req.route as object | undefined;
    const route = (matched && patterns.get(matched)) || UNMATCHED;
    const { labels } = cellOf(route, req.method, this.statusCode);
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, seconds);
  }

  return (_req, res, next) => {
    (res as Timed)[START] = performance.now();
    res.on('finish', onFinish);
    next();
  };
}

/** SHA-256 of both sides, so the comparison takes the same time whatever the lengths. */
function tokenCheck(token: string): (header: string | undefined) => boolean {
  const expected = createHash('sha256').update(token).digest();
  return (header) => {
    // Parsed as API keys are (users/auth.ts): the scheme in any case.
    const given = bearerKey(header) ?? '';
    return timingSafeEqual(createHash('sha256').update(given).digest(), expected) && given.length > 0;
  };
}

const unauthorized = () =>
  new AppError(401, 'unauthorized', 'Metrics need the operator\'s token: send the header "Authorization: Bearer <METRICS_TOKEN>".', undefined, {
    'WWW-Authenticate': 'Bearer realm="metrics"',
  });

/**
 * When metrics are on: count every request (mounted first, so the time covers all the app does) and,
 * with METRICS_TOKEN, serve GET /metrics on the main port to whoever sends that token.
 */
export function mountMetrics(app: Express, deps: AppDeps): void {
  const { metrics, config } = deps;
  if (!metrics) return;
  app.use(countRequests(metrics));
  if (config.metricsToken === null) return;
  const allowed = tokenCheck(config.metricsToken);
  app.get('/metrics', async (req, res) => {
    if (!allowed(req.headers.authorization)) throw unauthorized();
    const { contentType, body } = await metrics.scrape();
    res.set('Cache-Control', 'no-store').type(contentType).send(body);
  });
}
