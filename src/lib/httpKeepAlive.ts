import type http from 'node:http';

/**
 * Keep-alive timeouts of an HTTP server (HTTP_KEEP_ALIVE_TIMEOUT_MS), and a shutdown that does not
 * wait for them.
 *
 * A client (nginx, a cloud load balancer, a pooled http.Agent) that reuses an idle connection at the
 * moment the server closes it gets no answer at all: a reset, which a load balancer turns into a 502.
 * Node 20 closes an idle connection keepAliveTimeout + 1 s after its last response (its
 * HTTP_SERVER_KEEP_ALIVE_TIMEOUT_BUFFER), so the server's timeout must be longer than any client's
 * idle timeout: load balancers keep idle upstream connections about 60 s (nginx's keepalive_timeout,
 * AWS ALB), hence the default of 65 s (docs/reliability.md, "Keep-alive connections").
 */
export function applyKeepAliveTimeout(server: http.Server, keepAliveTimeoutMs: number): void {
  server.keepAliveTimeout = keepAliveTimeoutMs;
  // The headers of a request must be allowed longer than an idle connection lives (Node's advice since
  // the headers timer ran from the end of the previous response on keep-alive connections), and the
  // whole request at least as long as its headers (Node refuses headersTimeout > requestTimeout).
  server.headersTimeout = Math.max(server.headersTimeout, keepAliveTimeoutMs + 1000);
  if (server.requestTimeout > 0) server.requestTimeout = Math.max(server.requestTimeout, server.headersTimeout);
}

export interface Drain {
  /**
   * From now on every connection closes as soon as it has nothing to answer: idle ones at once, busy
   * ones after their response (sent with `Connection: close` when its headers are not out yet).
   */
  start(): void;
}

/**
 * Node's server.close() closes the connections idle at that moment only: a connection busy then
 * stays open after its answer for the whole keep-alive timeout (65 s), and shutdown would wait for it
 * until SHUTDOWN_TIMEOUT_MS cut everything. Call after Socket.IO is attached (it wraps the 'request'
 * listeners present then): this one is put first and sees every request, Socket.IO's polling too.
 */
export function drainOnClose(server: http.Server): Drain {
  const inFlight = new Set<http.ServerResponse>();
  let draining = false;
  const closeWhenIdle = () => server.closeIdleConnections();
  server.prependListener('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    inFlight.add(res);
    res.once('close', () => {
      inFlight.delete(res);
      // After 'finish' the socket is detached from this response: idle, unless pipelined requests wait.
      if (draining) closeWhenIdle();
    });
    if (draining) res.shouldKeepAlive = false;
  });
  return {
    start() {
      if (draining) return;
      draining = true;
      for (const res of inFlight) if (!res.headersSent) res.shouldKeepAlive = false;
      closeWhenIdle();
    },
  };
}
