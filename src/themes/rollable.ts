import { db } from '../db';
import { placeholders } from '../db/sql';
import type { DieDefinition } from '../dice/types';
import { DEFAULT_THEME_ID } from './defaultTheme';
import type { StoredManifest } from './manifest/manifest';
import { cacheDefinitions, cachedDefinitions, type ThemeVersionKey } from './rolling';
import { latestOf } from './versions';

/** A theme version a user may roll with, with its dice (die id, lower case -> definition). */
export interface RollableTheme extends ThemeVersionKey {
  dice: ReadonlyMap<string, DieDefinition | null>;
}

/**
 * The theme versions `userId` may roll with, by slug, among `slugs`: the version pinned in the user's
 * dice box, and the built-in theme's latest version for everyone. One query names the versions; a version's dice are
 * cached (versions never change), so manifests are read only for versions not seen before.
 */
export async function findRollableThemeVersions(userId: number, slugs: readonly string[]): Promise<Map<string, RollableTheme>> {
  const wanted = [...new Set(slugs)];
  const out = new Map<string, RollableTheme>();
  if (!wanted.length) return out;
  const withDefault = wanted.includes(DEFAULT_THEME_ID);
  const rows = await db().sql.query<{ boxed: unknown; slug: string; id: unknown; version: string }>(
    `SELECT 1 AS boxed, d.theme_slug AS slug, t.id AS id, t.version AS version
       FROM dice_box_items d JOIN themes t ON t.id = d.theme_id
      WHERE d.user_id = $1 AND d.theme_slug IN (${placeholders(wanted.length, 2)})` +
      (withDefault ? ` UNION ALL SELECT 0 AS boxed, t.slug AS slug, t.id AS id, t.version AS version FROM themes t WHERE t.slug = $${wanted.length + 2}` : ''),
    withDefault ? [userId, ...wanted, DEFAULT_THEME_ID] : [userId, ...wanted],
  );
  const versions = new Map<string, ThemeVersionKey>();
  for (const row of rows) if (Number(row.boxed) === 1) versions.set(row.slug, { id: Number(row.id), slug: row.slug, version: row.version });
  if (withDefault && !versions.has(DEFAULT_THEME_ID)) {
    const builtIn = rows.filter((r) => Number(r.boxed) === 0).map((r) => ({ id: Number(r.id), slug: r.slug, version: r.version }));
    const latest = latestOf(builtIn, (v) => v.version);
    if (latest) versions.set(DEFAULT_THEME_ID, latest);
  }
  // Taken now, not looked up again after the await: the bounded cache may drop an entry meanwhile.
  const diceOf = new Map<ThemeVersionKey, ReadonlyMap<string, DieDefinition | null>>();
  const unseen: ThemeVersionKey[] = [];
  for (const version of versions.values()) {
    const dice = cachedDefinitions(version);
    if (dice) diceOf.set(version, dice);
    else unseen.push(version);
  }
  if (unseen.length) {
    const manifests = await db().sql.query<{ id: unknown; manifest: string }>(
      `SELECT t.id AS id, t.manifest AS manifest FROM themes t WHERE t.id IN (${placeholders(unseen.length)})`,
      unseen.map((v) => v.id),
    );
    for (const m of manifests) {
      const version = unseen.find((v) => v.id === Number(m.id));
      if (version) diceOf.set(version, cacheDefinitions(version, JSON.parse(m.manifest) as StoredManifest));
    }
  }
  for (const [slug, version] of versions) {
    const dice = diceOf.get(version);
    if (dice) out.set(slug, { ...version, dice });
  }
  return out;
}
