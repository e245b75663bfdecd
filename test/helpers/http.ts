/** A small fetch wrapper: JSON in, JSON out, status and headers kept for assertions. */
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
  const res = await fetch(url, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  let parsed: any = null;
  if (text && (res.headers.get('content-type') ?? '').includes('json')) parsed = JSON.parse(text);
  return { status: res.status, headers: res.headers, body: parsed as T, text };
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
