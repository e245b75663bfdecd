import net from 'node:net';
import type { IncomingMessage } from 'node:http';

/**
 * Which client address the per-address limits (guest creation, failed keys, socket handshakes) count
 * against. Behind a reverse proxy the TCP peer is the proxy; the client is in `X-Forwarded-For`. Only
 * the entries written by proxies we trust may be believed: everything left of them was written by the
 * client, who can put any address there. So the service trusts exactly the proxies in front of it:
 * a number of hops (`TRUST_PROXY=1` behind the shipped nginx) or their addresses, never "all".
 */
export type TrustProxy = { hops: number } | { proxies: string[] };

/** Is the hop at `index` (0 = the TCP peer, 1 = the rightmost forwarded entry...) one of our proxies? */
export type TrustFn = (address: string, index: number) => boolean;

// The names Express accepts for its `trust proxy` setting, kept for operators who know them.
const NAMED_SUBNETS: Record<string, string[]> = {
  loopback: ['127.0.0.1/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/** Why `true` is refused, in words an operator can act on (config.ts puts it after "TRUST_PROXY is invalid"). */
export const TRUST_ALL_REFUSED =
  'must not be "true": trusting every hop lets each client choose its own address in X-Forwarded-For; set the number of proxies in front of the service (1 behind the shipped nginx) or their addresses';

/**
 * TRUST_PROXY as an operator writes it: empty, `false`/`no`/`off` or `0` (no proxy), a hop count, or a
 * comma-separated list of addresses, subnets (CIDR) and the names loopback, linklocal, uniquelocal.
 * Throws an Error whose message completes "TRUST_PROXY ..." for anything else, `true` included.
 */
export function parseTrustProxy(raw: string | undefined): TrustProxy {
  const value = (raw ?? '').trim().toLowerCase();
  if (value === '' || value === 'false' || value === 'no' || value === 'off') return { hops: 0 };
  if (value === 'true' || value === 'yes' || value === 'on') throw new Error(TRUST_ALL_REFUSED);
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops > 10) throw new Error('must be a number of proxies from 0 to 10, or their addresses');
    return { hops };
  }
  const proxies = value.split(',').map((entry) => entry.trim()).filter(Boolean);
  for (const entry of proxies) {
    if (!(entry in NAMED_SUBNETS) && !subnetOf(entry)) {
      throw new Error(`must be a number of proxies or a list of their addresses or subnets (10.0.0.0/8, loopback...); "${entry}" is neither`);
    }
  }
  return { proxies };
}

function subnetOf(entry: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | null {
  const [address, prefixText, extra] = entry.split('/');
  if (extra !== undefined || !address) return null;
  const version = net.isIP(address);
  if (!version) return null;
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : /^\d+$/.test(prefixText) ? Number(prefixText) : -1;
  if (prefix < 0 || prefix > max) return null;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** The trust decision for one hop. A list matches IPv4-mapped IPv6 peers (`::ffff:10.0.0.2`) too. */
export function compileTrust(trust: TrustProxy): TrustFn {
  if ('hops' in trust) {
    const { hops } = trust;
    return (_address, index) => index < hops;
  }
  const list = new net.BlockList();
  for (const entry of trust.proxies.flatMap((e) => NAMED_SUBNETS[e] ?? [e])) {
    const { address, prefix, family } = subnetOf(entry)!;
    list.addSubnet(address, prefix, family);
  }
  return (address) => {
    const version = net.isIP(address);
    return version !== 0 && list.check(address, version === 4 ? 'ipv4' : 'ipv6');
  };
}

/**
 * The client's address: walk from the TCP peer leftwards through `X-Forwarded-For` while the hop is
 * a trusted proxy; the first untrusted hop is the client (the leftmost entry when all are trusted).
 * The same walk as Express' proxy-addr, so that REST (`req.ip`, see app.ts) and Socket.IO handshakes
 * count the same client under the same address.
 */
export function clientAddress(peer: string | undefined, forwardedFor: string | string[] | undefined, trust: TrustFn): string {
  const forwarded = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : (forwardedFor ?? ''))
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .reverse();
  const hops = [peer || 'unknown', ...forwarded];
  for (let i = 0; i < hops.length - 1; i++) if (!trust(hops[i]!, i)) return hops[i]!;
  return hops[hops.length - 1]!;
}

/** clientAddress() of an HTTP request (Express' req, or the request of a Socket.IO handshake). */
export function clientAddressOf(req: Pick<IncomingMessage, 'socket' | 'headers'>, trust: TrustFn): string {
  return clientAddress(req.socket?.remoteAddress, req.headers['x-forwarded-for'], trust);
}
