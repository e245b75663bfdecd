/**
 * What a roll needs from themes: the versions a user may roll with (the rule is policy.ts
 * rollableVersions, the facts come from the themes store) and their dice, in the dice engine's terms.
 */
import { perApp } from '../lib/appContext';
import type { DieDefinition, Face } from '../dice/types';
import { isPhysicalType, normalizeDice, PLAIN_FACES } from './manifest/dice';
import type { StoredManifest } from './manifest/manifest';
import { manifestOf } from './manifest/stored';
import { rollableVersions, type ThemeVersionKey } from './policy';
import { latestThemesOf, manifestsOf, rollableCandidates, type RollableCandidate } from './store/themes';
import { publicVersions } from './publicThemes';
import { BoundedCache } from '../lib/cache';
import { cacheTtlMs, onInvalidation } from '../lib/invalidation';

export type { ThemeVersionKey } from './policy';

/** A theme version a user may roll with, with its dice (die id, lower case -> definition). */
export interface RollableTheme extends ThemeVersionKey {
  dice: ReadonlyMap<string, DieDefinition | null>;
}

/**
 * Dice-box pins, in process: per user, the version its box holds of each theme id asked for (null: not
 * in the box). Pushed invalidation (lib/invalidation.ts): a change to a user's box (`diceBoxes`). The
 * public themes' versions are cached by publicThemes.ts.
 */
const pinsByUser = perApp(() => new BoundedCache<number, ReadonlyMap<string, RollableCandidate | null>>({ maxWeight: 10_000, ttlMs: cacheTtlMs }));

onInvalidation((inv) => {
  if (inv.all || inv.allDiceBoxes) {
    pinsByUser().clear();
    return;
  }
  for (const userId of inv.diceBoxes ?? []) pinsByUser().delete(userId);
});

/**
 * What an unknown theme id rolls with (UNKNOWN_THEME, config.ts): null (the default) refuses it with a
 * 422; a built-in theme id rolls it in that theme's look, and the values say so in their `theme`.
 */
/** This server's UNKNOWN_THEME (lib/appContext.ts). */
const unknownTheme = perApp(() => ({ fallback: null as string | null }));

export function configureUnknownTheme(themeId: string | null): void {
  unknownTheme().fallback = themeId;
}

/** The candidates rollableVersions() chooses among: the box's pins (from the cache above when it holds them all) and the public themes' versions. */
async function candidatesFor(userId: number, wanted: string[]): Promise<RollableCandidate[]> {
  const everyones = (await publicVersions()).filter((v) => wanted.includes(v.slug));
  const pins = pinsByUser().get(userId);
  if (pins && wanted.every((slug) => pins.has(slug))) return [...wanted.flatMap((slug) => pins.get(slug) ?? []), ...everyones];
  const ticket = pinsByUser().ticket();
  const rows = await rollableCandidates(userId, wanted);
  // A user asking for ever new theme ids must not grow its entry without bound: start afresh past a few dozen.
  const known = new Map(pins && pins.size < 64 ? pins : []);
  for (const slug of wanted) known.set(slug, rows.find((r) => r.slug === slug) ?? null);
  pinsByUser().set(userId, known, ticket);
  return [...rows, ...everyones];
}

/**
 * The theme versions `userId` may roll with, by slug, among `slugs`: the version pinned in the user's
 * dice box, and the public themes' latest versions for everyone. The pins come from the cache above,
 * else one query names the versions; a version's dice are cached (versions never change), so manifests
 * are read only for versions not seen before. With UNKNOWN_THEME set, a slug the user may not roll with
 * maps to that theme (whose `slug` then differs from the key).
 */
export async function findRollableThemeVersions(userId: number, slugs: readonly string[]): Promise<Map<string, RollableTheme>> {
  const asked = [...new Set(slugs)];
  const out = new Map<string, RollableTheme>();
  if (!asked.length) return out;
  const { fallback } = unknownTheme();
  const wanted = fallback !== null && !asked.includes(fallback) ? [...asked, fallback] : asked;
  const versions = rollableVersions(await candidatesFor(userId, wanted));
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
  const stand = fallback !== null ? out.get(fallback) : undefined;
  if (stand) for (const slug of asked) if (!out.has(slug)) out.set(slug, stand);
  return out;
}

// A version never changes, so its definitions are cached by row id (bounded: oldest out first). Handing
// out the same objects lets the engine's own per-definition cache work across requests.
const CACHE_LIMIT = 500;
const cache = perApp(() => new Map<string, Map<string, DieDefinition | null>>());

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
  return cache().get(keyOf(theme));
}

/** The dice of a theme version from its stored manifest, cached for the next roll. */
export function cacheDefinitions(theme: ThemeVersionKey, manifest: StoredManifest): ReadonlyMap<string, DieDefinition | null> {
  const key = keyOf(theme);
  let defs = cache().get(key);
  if (!defs) {
    defs = definitions(manifest);
    if (cache().size >= CACHE_LIMIT) cache().delete(cache().keys().next().value as string);
    cache().set(key, defs);
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

/**
 * The latest version of each theme among `slugs`, with its dice, whoever may roll with it: what the roll
 * statistics (src/stats/) read a die's faces and face order from. A theme no longer stored is absent.
 */
export async function latestThemeDice(slugs: readonly string[]): Promise<Map<string, RollableTheme>> {
  const out = new Map<string, RollableTheme>();
  for (const [slug, theme] of await latestThemesOf([...new Set(slugs)])) {
    const key = { id: theme.id, slug: theme.slug, version: theme.version };
    out.set(slug, { ...key, dice: cachedDefinitions(key) ?? cacheDefinitions(key, manifestOf(theme)) });
  }
  return out;
}
