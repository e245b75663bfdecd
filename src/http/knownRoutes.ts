import type { RequestHandler } from 'express';
import { openApiDocument } from '../openapi';
import { notFoundRoute } from './errorHandler';

const API_PREFIX = '/api/1.0';

/**
 * The API's routes as method + path patterns, from the OpenAPI document: it lists every route the app
 * serves and no other (test/openapi/coverage.test.ts compares it with the router). Path parameters
 * match one segment, as Express's do; like Express, case and a trailing slash do not matter.
 */
function apiRoutePatterns(): Map<string, RegExp> {
  const byMethod = new Map<string, string[]>();
  for (const [template, item] of Object.entries(openApiDocument().paths)) {
    if (!template.startsWith(`${API_PREFIX}/`)) continue;
    const source = template
      .slice(API_PREFIX.length)
      .split(/\{[^}]+\}/)
      .map((literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^/]+');
    for (const method of Object.keys(item)) {
      const list = byMethod.get(method.toUpperCase()) ?? [];
      list.push(source);
      byMethod.set(method.toUpperCase(), list);
    }
  }
  // Express answers HEAD with the GET route.
  byMethod.set('HEAD', byMethod.get('GET') ?? []);
  // One alternation per method: every request asks, and one regular expression is cheaper than trying
  // a few dozen in turn (about 1% of POST /roll's CPU went there).
  return new Map([...byMethod].map(([method, sources]) => [method, new RegExp(`^(?:${sources.join('|')})/?$`, 'i')]));
}

/**
 * Mounted under /api/1.0 before `auth`: a method and path the API does not have is a 404
 * `route_not_found` at once, not a 401 that sends the caller looking for a key problem.
 */
export function unknownApiRoute(): RequestHandler {
  const patterns = apiRoutePatterns();
  return (req, res, next) => {
    if (patterns.get(req.method)?.test(req.path)) return next();
    notFoundRoute(req, res, next);
  };
}
