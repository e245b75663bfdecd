import { request as undiciRequest } from 'undici';

/** A small HTTP client for the tests: JSON in, JSON out, status and headers kept for assertions. */
export interface HttpResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  key?: string | null;
  body?: unknown;
  headers?: Record<string, string>;
  /** Raw body (string or FormData): sent as is, without JSON encoding. */
  raw?: BodyInit;
}

export async function request<T = any>(url: string, method: string, options: RequestOptions = {}): Promise<HttpResponse<T>> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: BodyInit | undefined = options.raw;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await send(url, { method, headers, body });
  let parsed: any = null;
  if (res.text && (res.headers.get('content-type') ?? '').includes('json')) parsed = JSON.parse(res.text);
  return { status: res.status, headers: res.headers, body: parsed as T, text: res.text };
}

export interface SendOptions {
  method: string;
  headers: Record<string, string>;
  body?: BodyInit;
  signal?: AbortSignal;
}

/**
 * One HTTP request as it is, redirects not followed; its status, headers and body as text.
 *
 * Through undici's `request` (the library under Node's fetch, without the WHATWG streams fetch builds
 * on): about half of fetch's CPU per request (`npm run bench:http-clients`); in the hostile tests'
 * profile fetch took more of the thread than Express and the routes it served. Forms and blobs still
 * go through fetch, which encodes them.
 * The differences a test could see: fetch also sends `accept-encoding`, `accept-language`,
 * `sec-fetch-mode` and `user-agent: node`; this client sends only what the caller sets. A failure to
 * connect rejects with an error whose `code` is the socket's (fetch puts it on the error's `cause`).
 */
export async function send(url: string, options: SendOptions): Promise<{ status: number; headers: Headers; text: string }> {
  const { method, headers, body, signal } = options;
  if (body !== undefined && typeof body !== 'string' && !(body instanceof Uint8Array)) {
    try {
      const res = await fetch(url, { method, headers, body, signal, redirect: 'manual' });
      return { status: res.status, headers: res.headers, text: await res.text() };
    } catch (err) {
      // fetch puts the socket's error code on the error's cause; undici's request, on the error.
      const e = err as Error & { code?: string; cause?: { code?: string } };
      e.code ??= e.cause?.code;
      throw e;
    }
  }
  const res = await undiciRequest(url, { method: method as 'GET', headers, body, signal });
  const answered = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (Array.isArray(value)) for (const v of value) answered.append(name, v);
    else if (value !== undefined) answered.append(name, value);
  }
  return { status: res.statusCode, headers: answered, text: await res.body.text() };
}

/** An API client bound to a base URL and (optionally) a key: `api.get('/room')` hits /api/1.0/room. */
export class Api {
  constructor(
    readonly base: string,
    readonly key: string | null = null,
  ) {}

  as(key: string | null): Api {
    return new Api(this.base, key);
  }

  url(path: string): string {
    return path.startsWith('http') ? path : `${this.base}/api/1.0${path}`;
  }

  get<T = any>(path: string, options: RequestOptions = {}) {
    return request<T>(this.url(path), 'GET', { key: this.key, ...options });
  }
  post<T = any>(path: string, body?: unknown, options: RequestOptions = {}) {
    return request<T>(this.url(path), 'POST', { key: this.key, body, ...options });
  }
  patch<T = any>(path: string, body?: unknown, options: RequestOptions = {}) {
    return request<T>(this.url(path), 'PATCH', { key: this.key, body, ...options });
  }
  put<T = any>(path: string, body?: unknown, options: RequestOptions = {}) {
    return request<T>(this.url(path), 'PUT', { key: this.key, body, ...options });
  }
  delete<T = any>(path: string, options: RequestOptions = {}) {
    return request<T>(this.url(path), 'DELETE', { key: this.key, ...options });
  }
}

/** A new guest through `api` (POST /user): its key, an Api that sends it, and the user as GET /user answers it. */
export async function newGuest(api: Api) {
  const res = await api.post('/user');
  if (res.status !== 201) throw new Error(`guest creation failed: ${res.status} ${res.text}`);
  const key = res.body.data as string;
  const me = await api.as(key).get('/user');
  return { key, api: api.as(key), user: me.body.data };
}

/** `total` GET /api/1.0/user with `key`, `inFlight` at a time, over the instances at `bases` in turn (as a load balancer does). */
export async function burstOfUserReads(bases: readonly string[], key: string, total: number, inFlight: number): Promise<HttpResponse[]> {
  const answers: HttpResponse[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < total) {
        const i = next++;
        answers.push(await request(`${bases[i % bases.length]!}/api/1.0/user`, 'GET', { key }));
      }
    }),
  );
  return answers;
}
