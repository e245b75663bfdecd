import { perApp } from './appContext';
import { MAX_CACHE_TTL_MS } from '../config';
import { publish, type DomainEvent } from '../events/bus';

/**
 * Pushed invalidation of the in-process caches (lib/cache.ts; docs/api.md, "Caches and bounded
 * staleness"). A change that would make a cached answer wrong names what it touched; `invalidate`
 * applies that to this process's caches at once and hands it to the transport, which, with Redis,
 * publishes it to every instance (src/realtime/transport/cacheInvalidations.ts: the control channel); each applies
 * it on receipt. Use cases await it before they answer, so when a revocation or a removal has been
 * answered, every instance that Redis reached has dropped what it cached. Without Redis (the embedded
 * shape) there is no transport: this process is the only cache.
 *
 * Invalidations are idempotent and coarse on purpose (a room, a user): they are rare, and dropping
 * a little more than needed costs one read.
 */
export interface Invalidation {
  /** API keys revoked (by id). */
  keys?: number[];
  /** Users whose record changed (name, username): their keys' cached user, and rooms that embed them. */
  users?: number[];
  /** Rooms whose row or participants changed, or that were deleted. */
  rooms?: number[];
  /** Users whose dice box changed (a theme pinned, upgraded, taken out). */
  diceBoxes?: number[];
  /** Every user's dice-box pins (the built-in theme, which every box holds, changed). */
  allDiceBoxes?: boolean;
  /** Everything: this instance may have missed invalidations (its Redis subscriber reconnected). */
  all?: boolean;
}

type Applier = (invalidation: Invalidation) => void;
type Transport = (invalidation: Invalidation) => Promise<void>;

const appliers = new Set<Applier>();
/** This server's transport and TTL (lib/appContext.ts); the appliers are code, the caches they clear per server. */
const caching = perApp(() => ({ transport: null as Transport | null, ttlMs: 5000 }));

export function configureCaches(options: { ttlMs: number }): void {
  caching().ttlMs = Math.max(0, Math.min(MAX_CACHE_TTL_MS, options.ttlMs));
  applyInvalidation({ all: true });
}

export function cacheTtlMs(): number {
  return caching().ttlMs;
}

/** A cache registers how it applies invalidations (at module load). */
export function onInvalidation(applier: Applier): void {
  appliers.add(applier);
}

/** Apply to this process's caches only: what an instance does on receipt of a pushed invalidation. */
export function applyInvalidation(invalidation: Invalidation): void {
  for (const apply of appliers) apply(invalidation);
}

/**
 * How invalidations reach the other instances (none until set). Must not reject. Answers the function
 * that removes it again (and only it: a process running two servers, as some tests do, keeps the other's).
 */
export function setInvalidationTransport(next: Transport): () => void {
  const state = caching();
  state.transport = next;
  return () => {
    if (state.transport === next) state.transport = null;
  };
}

/**
 * Apply here at once (synchronously, before this returns its promise), then publish to every
 * instance; resolves when the publish has been answered or has failed (never rejects: the change
 * is committed, and a lost push is bounded by the TTL and caught up by the transport).
 */
export function invalidate(invalidation: Invalidation): Promise<void> {
  applyInvalidation(invalidation);
  const { transport } = caching();
  return transport ? transport(invalidation) : Promise.resolve();
}

/**
 * After a commit: invalidate, announce the domain events (in process, as `publish` always did), and
 * resolve once the invalidation is published. The caller awaits this before answering.
 */
export async function announce(invalidation: Invalidation, ...events: DomainEvent[]): Promise<void> {
  const pushed = invalidate(invalidation);
  for (const event of events) publish(event);
  await pushed;
}
