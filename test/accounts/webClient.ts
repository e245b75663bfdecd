import type { PageState } from '../../src/accounts/page/state';

/** What the account pages answered: status, headers, and the page's state when it is a page. */
export interface WebAnswer {
  status: number;
  headers: Headers;
  location: string | null;
  text: string;
  state: PageState | null;
}

const ENTITIES: Record<string, string> = { '&quot;': '"', '&#39;': "'", '&lt;': '<', '&gt;': '>', '&amp;': '&' };

/** The state in an account page's data-page attribute (escape-html's five entities undone). */
export function pageState(html: string): PageState | null {
  const m = /data-page="([^"]*)"/.exec(html);
  return m ? (JSON.parse(m[1]!.replace(/&(quot|#39|lt|gt|amp);/g, (e) => ENTITIES[e]!)) as PageState) : null;
}

/**
 * A browser as far as the account pages care: a cookie jar, redirects not followed (the tests check
 * them), and each page's CSRF token kept for the next form. `forwardedFor` stands for the client's
 * address behind a trusted proxy (the server runs with TRUST_PROXY=1), so tests do not share limits.
 */
export class WebClient {
  cookies = new Map<string, string>();
  csrf = '';

  constructor(
    readonly base: string,
    readonly forwardedFor = '198.51.100.1',
    readonly extraHeaders: Record<string, string> = {},
  ) {}

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private async send(path: string, init: RequestInit): Promise<WebAnswer> {
    const res = await fetch(`${this.base}${path}`, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), cookie: this.cookieHeader(), 'x-forwarded-for': this.forwardedFor, ...this.extraHeaders },
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at);
      const value = pair!.slice(at + 1);
      if (!value || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await res.text();
    const state = (res.headers.get('content-type') ?? '').includes('text/html') ? pageState(text) : null;
    if (state?.csrf) this.csrf = state.csrf;
    return { status: res.status, headers: res.headers, location: res.headers.get('location'), text, state };
  }

  get(path: string): Promise<WebAnswer> {
    return this.send(path, { method: 'GET' });
  }

  /** A form post with this page's CSRF token unless `fields` sets `_csrf` itself (null: none at all). */
  post(path: string, fields: Record<string, string | null>): Promise<WebAnswer> {
    const form = new URLSearchParams();
    const all = { _csrf: this.csrf, ...fields };
    for (const [k, v] of Object.entries(all)) if (v !== null) form.set(k, v);
    return this.send(path, { method: 'POST', body: form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  }

  async signUp(username: string, password: string): Promise<WebAnswer> {
    await this.get('/signup');
    return this.post('/signup', { username, password });
  }

  async signIn(username: string, password: string): Promise<WebAnswer> {
    await this.get('/signin');
    return this.post('/signin', { username, password });
  }
}
