import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Target } from './ssrf';

/** What one attempt got back. */
export interface SendResult {
  /** The answer's status; null when there was none (timeout, connection error). */
  status: number | null;
  /** At most 1 KiB of the answer's body (the log keeps no more). */
  body: string | null;
  durationMs: number;
  /** A short reason when there was no answer. */
  error: string | null;
  /** Retry-After of a 429/503 (seconds or a date), in ms. */
  retryAfterMs: number | null;
}

export const RESPONSE_KEEP_BYTES = 1024;
/** Read this much of an answer at most, then hang up: a receiver cannot make us read a large body. */
const RESPONSE_READ_BYTES = 64 * 1024;

const USER_AGENT = 'dice-webhooks/1.0 (+https://www.standardwebhooks.com)';

/**
 * POST `body` to the target, connecting to the address that was checked (the lookup below answers it:
 * no second DNS query, TLS still checks the certificate against the URL's name). No redirects are
 * followed (node's client never does); no connection is kept (each attempt checks its address anew).
 */
export function send(target: Target, headers: Record<string, string>, body: string, timeoutMs: number): Promise<SendResult> {
  const started = performance.now();
  const lookup: LookupFunction = (_host, options, callback) => {
    // Node asks with `all: true` when autoSelectFamily is on: answer in the form asked.
    if ((options as { all?: boolean }).all)
      (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const client = target.url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Omit<SendResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, durationMs: Math.round(performance.now() - started) });
    };
    const req = client.request(
      target.url,
      {
        method: 'POST',
        agent: false,
        lookup,
        headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, 'content-length': Buffer.byteLength(body), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          if (read < RESPONSE_READ_BYTES) chunks.push(chunk);
          read += chunk.length;
          if (read >= RESPONSE_READ_BYTES) res.destroy();
        });
        const done = () => {
          const text = Buffer.concat(chunks).subarray(0, RESPONSE_KEEP_BYTES).toString('utf8');
          finish({ status: res.statusCode ?? null, body: text || null, error: null, retryAfterMs: retryAfter(res.headers['retry-after'], text) });
        };
        res.on('end', done);
        res.on('close', done);
        res.on('error', done);
      },
    );
    const timer = setTimeout(() => {
      finish({ status: null, body: null, error: `timed out after ${timeoutMs} ms`, retryAfterMs: null });
      req.destroy();
    }, timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) =>
      finish({ status: null, body: null, error: `connection failed (${err.code ?? 'error'})`, retryAfterMs: null }),
    );
    req.end(body);
  });
}

/**
 * Retry-After in ms: the header (seconds or an HTTP date), else Discord's `retry_after` (seconds, a
 * float) in a JSON body. Null when neither says.
 */
export function retryAfter(header: string | string[] | undefined, body: string): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (value) {
    if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.ceil(Number(value) * 1000);
    const date = Date.parse(value);
    if (!Number.isNaN(date)) return Math.max(0, date - Date.now());
  }
  try {
    const parsed = JSON.parse(body) as { retry_after?: unknown };
    if (typeof parsed.retry_after === 'number' && parsed.retry_after >= 0) return Math.ceil(parsed.retry_after * 1000);
  } catch {
    // Not JSON: no hint.
  }
  return null;
}
