import http from 'node:http';
import type { Express } from 'express';

/**
 * The HTTP server of an Express app, whose request and response objects are born with the app's
 * prototypes instead of receiving them on arrival.
 *
 * Why: Express's app.handle() gives every request and response its Express prototype with
 * Object.setPrototypeOf. On V8 (Node 20) that moves about 10 KiB of every request's objects into the
 * old generation, which the next major collection has to mark and sweep: measured with
 * `npm run bench:gc` (a one-route Express app, old-generation growth per request), and it is what
 * made the service's major collections come every ~9 s at half its maximum rate, each stalling the
 * requests of the next ~100 ms (docs/architecture.md, "A request").
 *
 * Node builds a server's requests and responses from the classes it is given. Subclasses of Node's
 * own, whose prototypes sit in front of Express's, are installed as the app's `request` and
 * `response`: Express's setPrototypeOf then finds the prototype already in place and changes
 * nothing. They must be classes: with a plain function as `new.target` (Reflect.construct) the old
 * generation grew as much as with the setPrototypeOf (measured; most likely a new hidden class per
 * request, since `new` on a plain function replaces the map V8 derived for it).
 * Everything Express defines on its prototypes (and createApp's `ip`) stays reachable behind them.
 * Socket.IO's requests on the same server are the same objects; it does not use the Express methods.
 */
export function createAppServer(app: Express): http.Server {
  class AppRequest extends http.IncomingMessage {}
  class AppResponse<Request extends http.IncomingMessage = http.IncomingMessage> extends http.ServerResponse<Request> {}
  Object.setPrototypeOf(AppRequest.prototype, app.request);
  Object.setPrototypeOf(AppResponse.prototype, app.response);
  app.request = AppRequest.prototype as unknown as Express['request'];
  app.response = AppResponse.prototype as unknown as Express['response'];
  return http.createServer({ IncomingMessage: AppRequest, ServerResponse: AppResponse }, app);
}
