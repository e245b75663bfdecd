/**
 * What a roll needs from a theme: the definition of one of its dice, in the dice engine's terms.
 */
import type { DieDefinition, Face } from '../dice/types';
import { Theme } from '../db/models';
import { isPhysicalType, normalizeDice, PLAIN_FACES } from './manifest/dice';
import type { StoredManifest } from './manifest/manifest';
import { manifestOf } from './manifest/stored';

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

/** What names a theme version for the cache: id, slug and version together (a row id alone could in
 * principle name another row in another database). */
export interface ThemeVersionKey {
  id: number;
  slug: string;
  version: string;
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
 * Null when the theme has no such die. Accepts a Theme row (cached by id) or a stored manifest.
 */
export function resolveDieForRoll(theme: Theme | StoredManifest, dieType: string): DieDefinition | null {
  const key = dieType.toLowerCase();
  if (!(theme instanceof Theme)) return definitions(theme).get(key) ?? null;
  return cacheDefinitions(theme, manifestOf(theme)).get(key) ?? null;
}
