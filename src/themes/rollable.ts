/**
 * What a roll needs from themes: the versions a user may roll with (the rule is policy.ts
 * rollableVersions, the facts come from the themes store) and their dice, in the dice engine's terms.
 */
import type { DieDefinition, Face } from '../dice/types';
import { DEFAULT_THEME_ID } from './defaultTheme';
import { isPhysicalType, normalizeDice, PLAIN_FACES } from './manifest/dice';
import type { StoredManifest } from './manifest/manifest';
import { manifestOf } from './manifest/stored';
import { rollableVersions, type ThemeVersionKey } from './policy';
import { manifestsOf, rollableCandidates, type RollableCandidate } from './store/themes';
import { BoundedCache } from '../lib/cache';
import { cacheTtlMs, onInvalidation } from '../lib/invalidation';

export type { ThemeVersionKey } from './policy';

/** A theme version a user may roll with, with its dice (die id, lower case -> definition). */
export interface RollableTheme extends ThemeVersionKey {
  dice: ReadonlyMap<string, DieDefinition | null>;
}

/**
 * Dice-box pins, in process: per user, the version its box holds of each theme id asked for (null: not
 * in the box), and the built-in theme's versions. Pushed invalidation (lib/invalidation.ts): a change
 * to a user's box (`diceBoxes`), a version of the built-in theme published or deleted (`allDiceBoxes`).
 */
const pinsByUser = new BoundedCache<number, ReadonlyMap<string, RollableCandidate | null>>({ maxWeight: 10_000, ttlMs: cacheTtlMs });
const builtInVersions = new BoundedCache<string, readonly RollableCandidate[]>({ maxWeight: 1, ttlMs: cacheTtlMs });

onInvalidation((inv) => {
  if (inv.all || inv.allDiceBoxes) {
    pinsByUser.clear();
    builtInVersions.clear();
    return;
  }
  for (const userId of inv.diceBoxes ?? []) pinsByUser.delete(userId);
});

/** The candidates rollableVersions() chooses among (store/themes.ts rollableCandidates), from the caches above when they hold them all. */
async function candidatesFor(userId: number, wanted: string[], builtIn: string | null): Promise<RollableCandidate[]> {
  const pins = pinsByUser.get(userId);
  const builtIns = builtIn !== null ? builtInVersions.get(builtIn) : undefined;
  if (pins && wanted.every((slug) => pins.has(slug)) && (builtIn === null || builtIns)) {
    const out = wanted.flatMap((slug) => pins.get(slug) ?? []);
    return builtIns ? [...out, ...builtIns] : out;
  }
  const [pinsTicket, builtInTicket] = [pinsByUser.ticket(), builtInVersions.ticket()];
  const rows = await rollableCandidates(userId, wanted, builtIn);
  // A user asking for ever new theme ids must not grow its entry without bound: start afresh past a few dozen.
  const known = new Map(pins && pins.size < 64 ? pins : []);
  for (const slug of wanted) known.set(slug, rows.find((r) => r.boxed && r.slug === slug) ?? null);
  pinsByUser.set(userId, known, pinsTicket);
  if (builtIn !== null) builtInVersions.set(builtIn, rows.filter((r) => !r.boxed), builtInTicket);
  return rows;
}

/**
 * The theme versions `userId` may roll with, by slug, among `slugs`: the version pinned in the user's
 * dice box, and the built-in theme's latest version for everyone. The pins come from the cache above,
 * else one query names the versions; a version's dice are cached (versions never change), so manifests
 * are read only for versions not seen before.
 */
export async function findRollableThemeVersions(userId: number, slugs: readonly string[]): Promise<Map<string, RollableTheme>> {
  const wanted = [...new Set(slugs)];
  const out = new Map<string, RollableTheme>();
  if (!wanted.length) return out;
  const builtIn = wanted.includes(DEFAULT_THEME_ID) ? DEFAULT_THEME_ID : null;
  const versions = rollableVersions(await candidatesFor(userId, wanted, builtIn), DEFAULT_THEME_ID);
  // Taken now, not looked up again after the await: the bounded cache may drop an entry meanwhile.
  const diceOf = new Map<ThemeVersionKey, ReadonlyMap<string, DieDefinition | null>>();
  const unseen: ThemeVersionKey[] = [];
  for (const version of versions.values()) {
    const dice = cachedDefinitions(version);
    if (dice) diceOf.set(version, dice);
    else unseen.push(version);
  }
  for (const m of await manifestsOf(unseen.map((v) => v.id))) {
    const version = unseen.find((v) => v.id === m.id);
    if (version) diceOf.set(version, cacheDefinitions(version, manifestOf(m)));
  }
  for (const [slug, version] of versions) {
    const dice = diceOf.get(version);
    if (dice) out.set(slug, { ...version, dice });
  }
  return out;
}

// A version never changes, so its definitions are cached by row id (bounded: oldest out first). Handing
// out the same objects lets the engine's own per-definition cache work across requests.
const CACHE_LIMIT = 500;
const cache = new Map<string, Map<string, DieDefinition | null>>();

function definitions(manifest: StoredManifest): Map<string, DieDefinition | null> {
  const out = new Map<string, DieDefinition | null>();
  for (const die of normalizeDice(manifest.available_dice)) {
    const key = die.id.toLowerCase();
    if (out.has(key)) continue;
    // Own keys only: a die with the id `constructor` must not find Object's constructor in `values`.
    const given = manifest.values && Object.hasOwn(manifest.values, die.id) ? manifest.values[die.id] : undefined;
    const faces: Face[] | null = Array.isArray(given) ? (given as Face[]) : isPhysicalType(die.type) ? [...PLAIN_FACES[die.type]] : null;
    out.set(key, faces ? Object.freeze({ id: die.id, type: die.type, notation: die.notation, faces: Object.freeze(faces) as Face[] }) : null);
  }
  return out;
}

const keyOf = (t: ThemeVersionKey) => `${t.id}:${t.slug}@${t.version}`;

/** The dice of a theme version when they are cached (a version never changes), else undefined. */
export function cachedDefinitions(theme: ThemeVersionKey): ReadonlyMap<string, DieDefinition | null> | undefined {
  return cache.get(keyOf(theme));
}

/** The dice of a theme version from its stored manifest, cached for the next roll. */
export function cacheDefinitions(theme: ThemeVersionKey, manifest: StoredManifest): ReadonlyMap<string, DieDefinition | null> {
  const key = keyOf(theme);
  let defs = cache.get(key);
  if (!defs) {
    defs = definitions(manifest);
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
    cache.set(key, defs);
  }
  return defs;
}

/**
 * The die `dieType` (a die id of the theme's available_dice, case-insensitive) of a theme version, as the
 * dice engine's DieDefinition: faces from the manifest's `values`, else the plain faces of its shape.
 * Null when the theme has no such die. Accepts a theme version record (cached by id) or a stored manifest.
 */
export function resolveDieForRoll(theme: (ThemeVersionKey & { manifest: unknown }) | StoredManifest, dieType: string): DieDefinition | null {
  const key = dieType.toLowerCase();
  if (!('manifest' in theme)) return definitions(theme).get(key) ?? null;
  return cacheDefinitions(theme, manifestOf(theme)).get(key) ?? null;
}
