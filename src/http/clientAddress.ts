import net from 'node:net';
import type { IncomingMessage } from 'node:http';
import { NAMED_SUBNETS, subnetOf, type TrustProxy } from '../trustProxyConfig';

// Read by config.ts (below this layer), re-exported for the HTTP layer's callers.
export { parseTrustProxy, TRUST_ALL_REFUSED, type TrustProxy } from '../trustProxyConfig';

/**
 * Which client address the per-address limits (guest creation, failed keys, socket handshakes) count
 * against. Behind a reverse proxy the TCP peer is the proxy; the client is in `X-Forwarded-For`. Only
 * the entries written by proxies we trust may be believed: everything left of them was written by the
 * client, who can put any address there. So the service trusts exactly the proxies in front of it:
 * a number of hops (`TRUST_PROXY=1` behind the shipped nginx) or their addresses, never "all".
 */

/** Is the hop at `index` (0 = the TCP peer, 1 = the rightmost forwarded entry...) one of our proxies? */
export type TrustFn = (address: string, index: number) => boolean;

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
