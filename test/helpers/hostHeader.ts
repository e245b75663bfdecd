import http from 'node:http';
import type { HttpResponse } from './http';

/**
 * A request with a Host header of our choosing (fetch does not let a caller set Host): what a client
 * forging its Host, or a proxy passing one through, sends. Bodies may be JSON or FormData.
 */
export async function requestWithHost(
  url: string,
  method: string,
  host: string,
  options: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<HttpResponse> {
  const headers: Record<string, string> = { host, accept: 'application/json', ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: Buffer | null = null;
  if (options.body instanceof FormData) {
    const encoded = new Response(options.body);
    body = Buffer.from(await encoded.arrayBuffer());
    headers['content-type'] = encoded.headers.get('content-type')!;
  } else if (options.body !== undefined) {
    body = Buffer.from(JSON.stringify(options.body));
    headers['content-type'] = 'application/json';
  }
  if (body) headers['content-length'] = String(body.length);
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const type = String(res.headers['content-type'] ?? '');
        const responseHeaders = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') responseHeaders.set(k, v);
        resolve({ status: res.statusCode ?? 0, headers: responseHeaders, body: text && type.includes('json') ? JSON.parse(text) : null, text });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}
