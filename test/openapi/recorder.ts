/**
 * Recording every response a test server sends (method, path, status, content type, JSON body), for
 * the OpenAPI checks of test/helpers/openapi.ts. Apart from it, and light, because test/openapi/record.ts
 * preloads it into every test process of a run.
 */
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { threadId } from 'node:worker_threads';

export interface ResponseRecord {
  method: string;
  /** path without the query string */
  path: string;
  status: number;
  contentType: string;
  /** JSON bodies parsed; other bodies left out */
  body?: unknown;
  /** where it was recorded (test file), for reports */
  source?: string;
}

/**
 * Set to true on a server a test builds that is not the service (a bare Express app, say): its
 * responses are not the API's, so the suite-wide check leaves them out.
 */
export const NOT_THE_SERVICE = Symbol.for('openapi.recorder.notTheService');

/** Record every response `server` sends (Socket.IO's own traffic excepted). Answers the list and a stop function. */
export function recordResponses(server: http.Server, onRecord?: (r: ResponseRecord) => void) {
  const records: ResponseRecord[] = [];
  const listener = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = req.url ?? '/';
    if (url.startsWith('/socket.io/') || (server as unknown as Record<symbol, unknown>)[NOT_THE_SERVICE]) return;
    const chunks: Buffer[] = [];
    const write = res.write.bind(res) as (...args: any[]) => boolean;
    const end = res.end.bind(res) as (...args: any[]) => http.ServerResponse;
    const keep = (chunk: unknown, encoding?: unknown) => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'));
    };
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      keep(chunk, rest[0]);
      return write(chunk, ...rest);
    }) as typeof res.write;
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      keep(chunk, rest[0]);
      return end(chunk, ...rest);
    }) as typeof res.end;
    res.once('finish', () => {
      const contentType = String(res.getHeader('content-type') ?? '');
      const record: ResponseRecord = { method: (req.method ?? 'GET').toLowerCase(), path: url.split('?')[0]!, status: res.statusCode, contentType };
      if (contentType.includes('json') && chunks.length) {
        try {
          record.body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          record.body = Buffer.concat(chunks).toString('utf8');
        }
      }
      records.push(record);
      onRecord?.(record);
    });
  };
  server.prependListener('request', listener);
  return { records, stop: () => void server.off('request', listener) };
}

/**
 * Suite-wide recording: every response appended to `<dir>/<pid>-<thread>.jsonl` (a file of its own per
 * test file, which runs in a worker thread of ava's process).
 */
export function recordResponsesToDir(server: http.Server, dir: string, source?: string) {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${process.pid}-${threadId}.jsonl`);
  return recordResponses(server, (r) => fs.appendFileSync(file, JSON.stringify(source ? { ...r, source } : r) + '\n'));
}
