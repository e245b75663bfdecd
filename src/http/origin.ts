/**
 * Which origin (scheme://host[:port]) the server may write into links.
 *
 * The `Host` header is whatever the client sent. A link that is *stored* and shown to other people (a
 * room's `bg_file_path`) must never name a host the operator did not choose: an owner sending
 * `Host: evil.example` would otherwise make every participant's client load the background from that site
 * (and a long forged host overflowed the column on PostgreSQL). So stored links use `trustedOrigin`:
 * PUBLIC_URL when set, else the request's own origin only when its host is one of ALLOWED_HOSTS (by
 * default the loopback names, which suits a development machine); otherwise no origin at all, and the
 * stored link is root-relative, which every client resolves against the server it already talks to.
 *
 * Links that are only ever answered to the request that named the host (`links` of a page, theme asset
 * URLs, a share request's `url`, the share page's accept button) use `baseUrl`: the trusted origin when
 * there is one, else the request's own origin, as before. A forged Host there misleads only its sender,
 * and the share page is `Cache-Control: no-store`, so no shared cache keeps it for anyone else.
 */
import type { Request } from 'express';
import type { Config } from '../config';

// Read by config.ts (below this layer), re-exported for the HTTP layer's callers.
import { HOST_PATTERN } from '../hostsConfig';
export { DEFAULT_ALLOWED_HOSTS, HOST_PATTERN } from '../hostsConfig';

type OriginConfig = Pick<Config, 'publicUrl' | 'allowedHosts'>;

function splitHost(host: string): { name: string; port: string | null } {
  const colon = host.lastIndexOf(':');
  // "[::1]" has colons inside the brackets; a port follows the closing bracket.
  if (colon < 0 || colon < host.lastIndexOf(']')) return { name: host, port: null };
  return { name: host.slice(0, colon), port: host.slice(colon + 1) };
}

/** Whether `host` (from a Host header) is allowed: an entry without a port allows the name on any port. */
export function isAllowedHost(host: string, allowed: readonly string[]): boolean {
  const given = splitHost(host.toLowerCase());
  for (const entry of allowed) {
    const want = splitHost(entry.toLowerCase());
    if (want.name === given.name && (want.port === null || want.port === given.port)) return true;
  }
  return false;
}

/** The request's Host header when it has the shape of a host, lower-cased; else null. */
function requestHost(req: Request): string | null {
  const host = req.get('host');
  return host && host.length <= 270 && HOST_PATTERN.test(host) ? host.toLowerCase() : null;
}

/** http or https only: behind TRUST_PROXY, req.protocol is whatever X-Forwarded-Proto said. */
function scheme(req: Request): 'http' | 'https' {
  return req.protocol === 'https' ? 'https' : 'http';
}

/** PUBLIC_URL, or the request's origin when its host is allowed; null when neither: write a root-relative link. */
export function trustedOrigin(req: Request, config: OriginConfig): string | null {
  if (config.publicUrl) return config.publicUrl;
  const host = requestHost(req);
  return host !== null && isAllowedHost(host, config.allowedHosts) ? `${scheme(req)}://${host}` : null;
}

/** For links answered only to this request: the trusted origin, else the request's own (see above). */
export function baseUrl(req: Request, config: OriginConfig): string {
  return trustedOrigin(req, config) ?? `${scheme(req)}://${requestHost(req) ?? 'localhost'}`;
}
