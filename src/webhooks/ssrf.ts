import { lookup } from 'node:dns/promises';
import net from 'node:net';
import type { WebhookConfig } from '../webhookConfig';

/**
 * Where a webhook may send (docs/webhooks.md, "Where deliveries may go"): a server that sends requests
 * to URLs its users choose must not become their way into its own network (SSRF). So:
 * - `https` only, except hosts the operator lists (WEBHOOK_ALLOWED_HOSTS, `host` or `host:port`), or
 *   everywhere when WEBHOOK_ALLOW_PRIVATE is on (a LAN install, tests);
 * - no credentials in the URL (they would be sent to whoever the name points to next);
 * - the addresses a name resolves to are checked at every delivery, and the request connects to the
 *   address that was checked (no second lookup for a rebinding name to answer differently);
 * - loopback, private, shared (CGNAT), link-local (cloud metadata), unique-local, multicast,
 *   unspecified and reserved addresses are refused unless allowed as above;
 * - redirects are never followed (the sender reports a 3xx as a failure).
 */
export class RefusedUrlError extends Error {
  constructor(readonly rule: string) {
    super(rule);
  }
}

const blocked = new net.BlockList();
for (const [net4, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net4, prefix, 'ipv4');
for (const [net6, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['100::', 64],
  ['2001::', 32],
  ['2002::', 16],
] as const)
  blocked.addSubnet(net6, prefix, 'ipv6');

/** Is `address` one a webhook must not reach (unless allowed)? IPv4 inside IPv6 (mapped, NAT64) is judged as IPv4. */
export function isForbiddenAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true;
  const embedded = embeddedIpv4(address.toLowerCase());
  if (embedded) return blocked.check(embedded, 'ipv4');
  return blocked.check(address, 'ipv6');
}

/** The IPv4 address inside ::ffff:a.b.c.d, ::a.b.c.d or 64:ff9b::a.b.c.d (dotted or hex), if any. */
function embeddedIpv4(address: string): string | null {
  const match = /^(?:::ffff:|::|64:ff9b::)(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/.exec(address);
  if (!match) return null;
  if (match[1]) return match[1];
  const hi = parseInt(match[2]!, 16);
  const lo = parseInt(match[3]!, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** The operator's exceptions (http allowed, private addresses allowed) for this URL's host. */
export function hostAllowed(url: URL, config: Pick<WebhookConfig, 'allowedHosts' | 'allowPrivate'>): boolean {
  if (config.allowPrivate) return true;
  const host = url.hostname.toLowerCase();
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return config.allowedHosts.includes(host) || config.allowedHosts.includes(`${host}:${port}`);
}

/** The URL's form: a parsed URL, or RefusedUrlError naming the rule it breaks. */
export function checkUrlShape(text: string, config: Pick<WebhookConfig, 'allowedHosts' | 'allowPrivate'>): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RefusedUrlError('url must be an absolute URL.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new RefusedUrlError('url must be an https URL.');
  if (url.username || url.password) throw new RefusedUrlError('url must not contain credentials (user:password@).');
  if (url.hash) throw new RefusedUrlError('url must not contain a fragment (#).');
  const allowed = hostAllowed(url, config);
  if (url.protocol === 'http:' && !allowed)
    throw new RefusedUrlError('url must be an https URL (http is only allowed for hosts the operator lists in WEBHOOK_ALLOWED_HOSTS).');
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(literal) && isForbiddenAddress(literal) && !allowed) {
    throw new RefusedUrlError('url must not point to a loopback, private, link-local, unique-local, multicast or unspecified address.');
  }
  // `localhost.` (the absolute form) is the same name.
  const name = literal.toLowerCase().replace(/\.$/, '');
  if (!net.isIP(literal) && (name === 'localhost' || name.endsWith('.localhost')) && !allowed) {
    throw new RefusedUrlError('url must not point to a loopback, private, link-local, unique-local, multicast or unspecified address.');
  }
  return url;
}

export interface Target {
  url: URL;
  /** The address to connect to: the one that was checked. */
  address: string;
  family: 4 | 6;
}

/**
 * Resolve the URL's host now and check every address it has (a name with one good and one private
 * address is refused: which one a connection would use is not ours to pick). Throws RefusedUrlError.
 */
export async function resolveTarget(url: URL, config: Pick<WebhookConfig, 'allowedHosts' | 'allowPrivate'>): Promise<Target> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const allowed = hostAllowed(url, config);
  let addresses: { address: string; family: number }[];
  if (net.isIP(host)) addresses = [{ address: host, family: net.isIP(host) }];
  else {
    try {
      addresses = await lookup(host, { all: true, verbatim: true });
    } catch {
      throw new RefusedUrlError(`url's host "${host}" does not resolve.`);
    }
  }
  if (!addresses.length) throw new RefusedUrlError(`url's host "${host}" does not resolve.`);
  if (!allowed && addresses.some((a) => isForbiddenAddress(a.address))) {
    throw new RefusedUrlError('url must not point to a loopback, private, link-local, unique-local, multicast or unspecified address.');
  }
  const first = addresses[0]!;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
