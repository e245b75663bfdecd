import { EventEmitter } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitUntil } from './waiting';

/** One request a receiver got. */
export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: any;
  /** performance.now() when it arrived. */
  at: number;
  /** The status this receiver answered, once the answer was written (null until then, or never). */
  answered: number | null;
}

/** `delayMs`: answer that much later (a slow receiver; a sender killed meanwhile never hears it). */
export type Answer = { status: number; body?: string; headers?: Record<string, string>; delayMs?: number };

/**
 * A real HTTP server standing for webhook receivers: it records every request, and answers each
 * path as told (`answer(path, fn)`: fn gets how many requests that path had before; default 200).
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  private readonly events = new EventEmitter();
  private readonly answers = new Map<string, (count: number) => Answer>();
  private server!: http.Server;
  url = '';

  async start(): Promise<this> {
    // `new http.Server`, not http.createServer: the OpenAPI recorder (test/openapi/record.ts) wraps the
    // latter, and this server's answers are the receiver's, not the API's.
    this.server = new http.Server((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = (req.url ?? '/').split('?')[0]!;
        const body = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(body);
        } catch {
          json = null;
        }
        const before = this.received.filter((r) => r.path === path).length;
        const got: Received = { path, headers: req.headers, body, json, at: performance.now(), answered: null };
        this.received.push(got);
        const answer = this.answers.get(path)?.(before) ?? { status: 200, body: 'ok' };
        const reply = () => {
          if (res.destroyed) return;
          res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
          res.end(answer.body ?? '', () => {
            got.answered = answer.status;
            this.events.emit('request');
          });
        };
        if (answer.delayMs) setTimeout(reply, answer.delayMs);
        else reply();
        this.events.emit('request');
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  answer(path: string, fn: (count: number) => Answer): void {
    this.answers.set(path, fn);
  }

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  /** Resolves with the requests to `path` once `check` accepts them. */
  waitFor(path: string, check: (got: Received[]) => boolean, what: string, timeoutMs = 10_000): Promise<Received[]> {
    return waitUntil(
      (wake) => {
        this.events.on('request', wake);
        return () => this.events.off('request', wake);
      },
      () => (check(this.at(path)) ? this.at(path) : undefined),
      what,
      () =>
        `${path} got ${this.at(path).length} requests: ${this.at(path)
          .map((r) => r.body.slice(0, 120))
          .join(' | ')}`,
      timeoutMs,
    );
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
