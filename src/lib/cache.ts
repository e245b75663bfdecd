/**
 * A bounded in-process cache with a time to live, for the hot paths' reads (API key -> user, a room
 * as rolls embed it, dice-box pins). Every cache of this kind is invalidated by pushes
 * (lib/invalidation.ts); the TTL only bounds how long an answer can outlive a push that was lost.
 *
 * - Bounded: once the entries' total weight passes `maxWeight` (a weight per entry: a room of 1,000
 *   participants weighs more than a key), entries go oldest first, except that one used since it was
 *   last looked at gets a second chance (CLOCK, an approximation of least recently used).
 * - A hit changes no Map, it only marks the entry used. Moving the entry to the Map's end on every hit
 *   (delete + set, exact LRU) made V8 rehash the Map's table every few hits, and a long-lived Map's
 *   new table is allocated in the old generation: about 54 bytes of old-generation garbage per hit,
 *   which, three caches per request, was most of what `GET /roll/{uuid}` still left there and what set
 *   off its major collections (docs/api.md, "Caches and bounded staleness").
 * - Fills are guarded against invalidations that happen while the database is being read: take a
 *   `ticket()` before the read and give it to `set()`; if any invalidation touched the cache in
 *   between, the value (possibly read before the change committed) is not kept. Without this, a
 *   read that started before a revocation and finished after its push would cache the revoked key
 *   until the TTL.
 * - Concurrent misses of one key share one read (`getOrLoad`): when a hot entry expires under load,
 *   one query refills it, instead of one per request in flight queueing on the database pool (that
 *   herd, every TTL, was most of `GET /roll/{uuid}`'s tail latency: docs/performance.md).
 */
export interface BoundedCacheOptions<V> {
  /** Largest total weight held (entries, when `weigh` is not given). */
  maxWeight: number;
  /** An entry's weight (at least 1). */
  weigh?: (value: V) => number;
  /** Milliseconds an entry lives; read on every set (0: nothing is kept). */
  ttlMs: () => number;
}

/**
 * Each entry lives between 80% and 100% of the TTL, drawn at random. Instances fill a shared entry at
 * the same moment (the same push voids it everywhere, the next roll refills it everywhere), so with a
 * fixed TTL they all reloaded it at once, every TTL: a big room's reload on both instances of
 * bench:fanout made its slowest deliveries. The TTL stays the upper bound.
 */
const TTL_JITTER = 0.2;

interface Entry<V> {
  value: V;
  expiresAt: number;
  weight: number;
  /** Read since eviction last passed it: it is passed over once (moved to the end) instead of dropped. */
  used: boolean;
}

export class BoundedCache<K, V> {
  private readonly entries = new Map<K, Entry<V>>();
  /** Reads in progress, by key; forgotten at every invalidation, so no one joins a read older than a change. */
  private readonly loading = new Map<K, Promise<V | null>>();
  private weight = 0;
  private epoch = 0;

  constructor(private readonly options: BoundedCacheOptions<V>) {}

  get size(): number {
    return this.entries.size;
  }

  /** The live value of `key`, or undefined (expired entries are dropped here). */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.drop(key, entry);
      return undefined;
    }
    entry.used = true;
    return entry.value;
  }

  /**
   * The live value of `key`, else what `load` reads (null: nothing to keep, answered as null). A request
   * that misses while a read of the same key is in progress, with no invalidation since it began, waits
   * for that read instead of starting its own; after an invalidation, the next miss reads afresh.
   */
  getOrLoad(key: K, load: () => Promise<V | null>): Promise<V | null> {
    const cached = this.get(key);
    if (cached !== undefined) return Promise.resolve(cached);
    const inProgress = this.loading.get(key);
    if (inProgress) return inProgress;
    const ticket = this.epoch;
    const read: Promise<V | null> = (async () => {
      const value = await load();
      if (value !== null) this.set(key, value, ticket);
      return value;
    })().finally(() => {
      if (this.loading.get(key) === read) this.loading.delete(key);
    });
    this.loading.set(key, read);
    return read;
  }

  /** Take before reading what will be `set`: a later invalidation voids the fill. */
  ticket(): number {
    return this.epoch;
  }

  /** Keep `value` unless an invalidation came since `ticket` was taken (or caching is off). */
  set(key: K, value: V, ticket: number): void {
    const ttl = this.options.ttlMs();
    if (ttl <= 0 || ticket !== this.epoch) return;
    const old = this.entries.get(key);
    if (old) this.drop(key, old);
    const weight = Math.max(1, this.options.weigh?.(value) ?? 1);
    if (weight > this.options.maxWeight) return;
    this.entries.set(key, { value, expiresAt: Date.now() + ttl * (1 - TTL_JITTER * Math.random()), weight, used: false });
    this.weight += weight;
    // Oldest first (Map keeps insertion order). A used entry is moved to the end, unmarked, and met again
    // later in this same loop, so every entry is visited at most twice. The entry just set is never the one to go.
    for (const [k, e] of this.entries) {
      if (this.weight <= this.options.maxWeight) break;
      if (k === key) continue;
      if (e.used) {
        e.used = false;
        this.entries.delete(k);
        this.entries.set(k, e);
      } else this.drop(k, e);
    }
  }

  delete(key: K): void {
    this.epoch++;
    this.loading.clear();
    const entry = this.entries.get(key);
    if (entry) this.drop(key, entry);
  }

  /** Drop every entry `matches` names (invalidations by something other than the key: a user, a room id). */
  deleteWhere(matches: (value: V, key: K) => boolean): void {
    this.epoch++;
    this.loading.clear();
    for (const [k, e] of this.entries) if (matches(e.value, k)) this.drop(k, e);
  }

  clear(): void {
    this.epoch++;
    this.loading.clear();
    this.entries.clear();
    this.weight = 0;
  }

  private drop(key: K, entry: Entry<V>): void {
    this.entries.delete(key);
    this.weight -= entry.weight;
  }
}
