/**
 * Leases: this instance reserves points of a shared fixed-window counter (Redis) in blocks and spends
 * them locally, so that most hits never leave the process, while the deployment-wide limit is never
 * exceeded. The rule, its bound and the figures are in docs/reliability.md ("Leases").
 *
 * - A hit spends one point of this instance's lease for the key when it holds one for the current
 *   window. Otherwise it reserves a block of B points in one command (`INCRBY B` on the counter
 *   every instance shares) and keeps, of that block, the points whose place in the counter is within
 *   the limit: positions (count - B, count] up to `limit`. The points past the limit are left counted
 *   (like a refused hit is), never given back: the counter only grows, so each admitted point owns a
 *   distinct place at or under the limit, whatever the other instances do meanwhile. (Giving a block
 *   back and retrying one point, the other way to keep a request that fits, costs two more round
 *   trips near the limit and, while the block is out, lets other instances' hits see a counter over
 *   the limit and be refused for nothing.)
 * - B = clamp(floor(R / 8), 1, maxBlock), R = limit minus the counter as this instance last saw it
 *   in this window (the whole limit for a new window): points held unspent by instances that no
 *   longer get requests shrink as the window fills, and with B = 1 it counts exactly as without
 *   leases (small limits, RATE_LIMIT_LEASE_MAX=1).
 * - Concurrent hits of one key share the reservation in flight; single-point hits (B = 1) go side by
 *   side, as they did before leases.
 * - The next block is reserved ahead: when a hit leaves a block-sized lease with a quarter of its
 *   block or less, one reservation starts in the background, and hits go on spending what is left
 *   meanwhile. A hot key then never waits for Redis while its points last (a reservation's round trip
 *   is shorter than a quarter block of hits), at the price of holding up to a quarter block more: the
 *   bound on points unspent elsewhere becomes (N - 1) x (maxBlock + floor(maxBlock / 4)).
 * - Once this instance has seen the window counted past the limit, its further hits in that window are
 *   refused here without a round trip (they are no longer added to the counter: places past the limit
 *   admit no one). A give-back on another instance (a right passcode, `unhit`) is then only seen at
 *   the next window: refusing a little early, never admitting too much. (Not with maxBlock 1, which
 *   counts every hit in Redis, refused ones included, exactly as before leases.)
 * - A lease ends with its window: the reservation's answer says how long the counter lives, measured
 *   from before the command was sent, so the lease never outlives the window it was counted in.
 */

/** The shared counter as a lease sees it (the Redis store, or its in-memory insurance during an outage). */
export interface SharedCounter {
  /** Add `points`; answers the counter after them, ms until its window ends, and whether memory answered instead of Redis. */
  add(key: string, points: number, windowMs: number): Promise<{ count: number; resetMs: number; insured: boolean }>;
  /** Take `points` back from the in-memory count (a block the insurance answered: in memory, hits count one by one). */
  giveBackInMemory(key: string, points: number, windowMs: number): Promise<void>;
  /** Whether the shared counter is reachable now: while it is not, no lease is spent or taken (hits count one by one, in memory). */
  reachable(): boolean;
}

export interface Counted {
  count: number;
  resetMs: number;
}

interface Lease {
  /** performance.now() at which the counter's window ends (never later than Redis's own expiry). */
  windowEnd: number;
  /** Points reserved and not yet spent. */
  left: number;
  /** The highest place this instance's points reach within the limit: a spend's count is `top - left`. */
  top: number;
  /** The counter as this instance last saw it in this window (may be past the limit). */
  seen: number;
  /** The size of the last reservation: 1 means nothing is held here that Redis does not know of. */
  block: number;
  /** The block reservation in flight, shared by the hits that arrive meanwhile. */
  pending: Promise<void> | null;
  /** The block reserved ahead, taken up when this one is spent (or when its window ends, if it belongs to the next window). */
  next: Block | null;
  /** The reservation ahead in flight (hits wait for it only once this block is spent). */
  ahead: Promise<void> | null;
}

/** A reserved block's own part of a lease. */
type Block = Pick<Lease, 'windowEnd' | 'left' | 'top' | 'seen' | 'block'>;

/** Blocks shrink by this divisor of what is left: near the limit, little is held where it may go unspent. */
const SHARE = 8;
/** The next block is reserved once this fraction of a block or less is left (1 / AHEAD). */
const AHEAD = 4;

/** A block's places are (count - block, count]: the first of them, and how many are at or under the limit (this instance's). */
function placesOf(count: number, block: number, limit: number): { first: number; usable: number } {
  const first = count - block + 1;
  return { first, usable: Math.max(0, Math.min(block, limit - first + 1)) };
}

export class LeaseTable {
  private readonly leases = new Map<string, Lease>();

  constructor(
    private readonly counter: SharedCounter,
    /** RATE_LIMIT_LEASE_MAX: the largest block; 1 turns leases off. */
    private readonly maxBlock: number,
    /** Leases kept at most (a flood of distinct keys cannot grow the map past it). */
    private readonly maxKeys = 10_000,
  ) {}

  /** Leases held (for tests and metrics). */
  get size(): number {
    return this.leases.size;
  }

  /** The block a reservation for `lease` would take now. */
  private blockFor(lease: Lease | undefined, limit: number): number {
    if (this.maxBlock <= 1 || !this.counter.reachable()) return 1;
    const remaining = limit - (lease ? lease.seen : 0);
    return Math.max(1, Math.min(this.maxBlock, Math.floor(remaining / SHARE)));
  }

  async hit(key: string, windowMs: number, limit: number): Promise<Counted> {
    for (;;) {
      let lease = this.leases.get(key);
      if (lease?.pending) {
        // Share the reservation in flight; if it failed, this hit tries its own.
        await lease.pending;
        continue;
      }
      const now = performance.now();
      if (lease && (lease.windowEnd <= now || lease.left === 0) && lease.next && lease.next.windowEnd > now) {
        // This block is spent (or its window over): the one reserved ahead takes over.
        Object.assign(lease, lease.next);
        lease.next = null;
      }
      if (lease && lease.windowEnd <= now) {
        if (lease.ahead) {
          await lease.ahead; // it may belong to the window that begins now
          continue;
        }
        this.leases.delete(key);
        lease = undefined;
      }
      if (lease && this.counter.reachable()) {
        if (lease.left > 0) {
          lease.left -= 1;
          if (lease.block > 1 && lease.left <= Math.floor(lease.block / AHEAD) && !lease.ahead && !lease.next) this.reserveAhead(key, windowMs, limit, lease);
          return { count: lease.top - lease.left, resetMs: lease.windowEnd - now };
        }
        if (lease.ahead) {
          await lease.ahead;
          continue;
        }
        // This window was seen counted past the limit: every place in it is taken, and nothing but a
        // give-back (unhit) frees one, so the hit is refused here, without a round trip.
        if (lease.seen > limit && this.maxBlock > 1) return { count: lease.seen + 1, resetMs: lease.windowEnd - now };
      }
      const block = this.blockFor(lease, limit);
      if (block === 1) return this.single(key, windowMs);
      return this.reserve(key, windowMs, limit, block, lease);
    }
  }

  /**
   * Give back one point of an admitted hit, here when this instance holds a block lease for the key
   * (the point is spent again by the next hit here); answers false when the caller must give it back
   * to the shared counter instead.
   */
  unhit(key: string): boolean {
    const lease = this.leases.get(key);
    if (!lease || lease.pending || lease.block <= 1 || lease.windowEnd <= performance.now() || !this.counter.reachable()) return false;
    lease.left += 1;
    return true;
  }

  /** One point, exactly as without leases; remembered so that the next block knows what is left. */
  private async single(key: string, windowMs: number): Promise<Counted> {
    const sent = performance.now();
    const res = await this.counter.add(key, 1, windowMs);
    const lease = this.leases.get(key);
    if (res.insured) {
      if (lease && !lease.pending) this.leases.delete(key);
    } else if (lease && !lease.pending && lease.windowEnd > performance.now()) {
      lease.seen = Math.max(lease.seen, res.count);
    } else if (!lease?.pending) {
      this.place(key, { windowEnd: sent + res.resetMs, left: 0, top: 0, seen: res.count, block: 1, pending: null, next: null, ahead: null });
    }
    return { count: res.count, resetMs: res.resetMs };
  }

  private async reserve(key: string, windowMs: number, limit: number, block: number, previous: Lease | undefined): Promise<Counted> {
    const lease: Lease = previous ?? { windowEnd: 0, left: 0, top: 0, seen: 0, block: 1, pending: null, next: null, ahead: null };
    if (!previous) this.place(key, lease);
    let settle!: () => void;
    lease.pending = new Promise<void>((resolve) => (settle = resolve));
    try {
      const sent = performance.now();
      const res = await this.counter.add(key, block, windowMs);
      const { first, usable } = placesOf(res.count, block, limit);
      if (res.insured) {
        // Redis went away under this reservation: counted in memory, where leases are not kept (the
        // insurance counts each hit, as it did before leases): the rest of the block goes back there.
        this.leases.delete(key);
        await this.counter.giveBackInMemory(key, block - 1, windowMs);
        return { count: first, resetMs: res.resetMs };
      }
      lease.windowEnd = sent + res.resetMs;
      lease.seen = res.count;
      lease.block = block;
      lease.left = Math.max(0, usable - 1);
      lease.top = first + usable - 1;
      return { count: first, resetMs: res.resetMs };
    } finally {
      lease.pending = null;
      settle();
    }
  }

  /**
   * Reserve the next block while `lease` still has points (not awaited by the hit that starts it). Its
   * places are kept as reserve() keeps them; if the counter was already past the limit, the lease
   * learns it (its window is then refused here once its points are spent). A block the insurance
   * answered (Redis went away meanwhile) goes back to it whole: no hit was counted with it.
   */
  private reserveAhead(key: string, windowMs: number, limit: number, lease: Lease): void {
    const block = this.blockFor(lease, limit);
    if (block <= 1) return;
    const sent = performance.now();
    lease.ahead = this.counter
      .add(key, block, windowMs)
      .then(async (res) => {
        if (res.insured) return this.counter.giveBackInMemory(key, block, windowMs);
        const windowEnd = sent + res.resetMs;
        const { first, usable } = placesOf(res.count, block, limit);
        // Same window as the lease's (the counter's expiry moved by no more than the round trip), or the next one.
        if (windowEnd < lease.windowEnd + windowMs / 2) lease.seen = Math.max(lease.seen, res.count);
        if (usable > 0 || windowEnd >= lease.windowEnd + windowMs / 2)
          lease.next = { windowEnd, left: usable, top: first + usable - 1, seen: res.count, block };
      })
      .catch(() => undefined) // the next hit without points reserves on its own, as before
      .finally(() => {
        lease.ahead = null;
      });
  }

  /** Insert, first making room: expired leases go, then (all live) the oldest tenth, whose unspent points go unused. */
  private place(key: string, lease: Lease) {
    if (this.leases.size >= this.maxKeys) {
      const now = performance.now();
      for (const [k, l] of this.leases) if (!l.pending && !l.ahead && l.windowEnd <= now) this.leases.delete(k);
      if (this.leases.size >= this.maxKeys) {
        let drop = Math.ceil(this.maxKeys / 10);
        for (const [k, l] of this.leases) {
          if (drop <= 0) break;
          if (l.pending || l.ahead) continue;
          this.leases.delete(k);
          drop -= 1;
        }
      }
    }
    this.leases.set(key, lease);
  }
}
