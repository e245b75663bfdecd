/**
 * TRUST_PROXY, the proxies in front of the service, as configuration reads it. Here, beside config.ts
 * and below the HTTP layer that uses it (src/http/clientAddress.ts: which address a request counts
 * against), because configuration imports nothing above it (docs/architecture.md, "Layers and folders").
 */
import net from 'node:net';

/** A number of trusted hops (`TRUST_PROXY=1` behind the shipped nginx) or the proxies' addresses. */
export type TrustProxy = { hops: number } | { proxies: string[] };

// The names Express accepts for its `trust proxy` setting, kept for operators who know them.
export const NAMED_SUBNETS: Record<string, string[]> = {
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
  const proxies = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of proxies) {
    if (!(entry in NAMED_SUBNETS) && !subnetOf(entry)) {
      throw new Error(`must be a number of proxies or a list of their addresses or subnets (10.0.0.0/8, loopback...); "${entry}" is neither`);
    }
  }
  return { proxies };
}

export function subnetOf(entry: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | null {
  const [address, prefixText, extra] = entry.split('/');
  if (extra !== undefined || !address) return null;
  const version = net.isIP(address);
  if (!version) return null;
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : /^\d+$/.test(prefixText) ? Number(prefixText) : -1;
  if (prefix < 0 || prefix > max) return null;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}
