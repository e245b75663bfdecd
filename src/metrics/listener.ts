import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../logger';
import type { Metrics } from './index';
import { applyKeepAliveTimeout } from '../lib/httpKeepAlive';

export interface MetricsListener {
  url: string;
  close(): Promise<void>;
}

function send(res: http.ServerResponse, status: number, contentType: string, body: string | undefined) {
  res.statusCode = status;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Cache-Control', 'no-store');
  res.end(body);
}

function sendJson(res: http.ServerResponse, status: number, body: unknown) {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(body));
}

/**
 * METRICS_PORT: GET /metrics on a listener of its own, without a token (the port is meant to be
 * reachable from the Prometheus network only). Plain node:http: nothing of the API is served here.
 */
export async function listenMetrics(
  metrics: Metrics,
  { port, host, keepAliveTimeoutMs }: { port: number; host: string; keepAliveTimeoutMs: number },
  logger: Logger,
): Promise<MetricsListener> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      sendJson(res, 404, {
        type: 'error',
        data: { code: 'route_not_found', message: `There is no ${req.method} ${path} here: this port serves GET /metrics only.` },
      });
      return;
    }
    metrics.scrape().then(
      ({ contentType, body }) => {
        send(res, 200, contentType, req.method === 'HEAD' ? undefined : body);
      },
      (err: Error) => {
        logger.error({ err }, 'metrics collection failed');
        sendJson(res, 500, { type: 'error', data: { code: 'internal_error', message: 'The metrics could not be collected.' } });
      },
    );
  });
  // The same keep-alive timeout as the API's (HTTP_KEEP_ALIVE_TIMEOUT_MS): a scraper behind a proxy pools too.
  applyKeepAliveTimeout(server, keepAliveTimeoutMs);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return {
    url: `http://${shown}:${address.port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
