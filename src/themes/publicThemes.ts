/**
 * Public themes: theme ids everyone may roll with at their latest version (unless their dice box pins
 * another), that every dice box holds without a row of its own, and that anyone may extend or preview
 * without a key. The built-in themes are public (migration 0012: `standard`, `dddice-bees`,
 * `dddice-red`, `dddice-standard`); an operator makes any other theme public (`npm run cli --
 * theme:public ID`). Public-ness belongs to the id: the owner's later versions are everyone's too.
 */
import { perApp } from '../lib/appContext';
import { ForbiddenError, NotFoundError } from '../errors';
import { BoundedCache } from '../lib/cache';
import { cacheTtlMs, onInvalidation } from '../lib/invalidation';
import { latestOf } from './versions';
import { markPublic, publicThemeVersions, unmarkPublic } from './store/publicThemes';
import { versionRows, withThemeLocked, type RollableCandidate } from './store/themes';
import { DEFAULT_THEME_ID } from './defaultTheme';

/**
 * Every version of every public theme, in process: read on every roll. Pushed invalidation
 * (lib/invalidation.ts `allDiceBoxes`): a version of a public theme published or deleted, a theme
 * made public; the TTL bounds a lost push (and a CLI that could not reach Redis).
 */
const versionsCache = perApp(() => new BoundedCache<'all', readonly RollableCandidate[]>({ maxWeight: 1, ttlMs: cacheTtlMs }));

onInvalidation((inv) => {
  if (inv.all || inv.allDiceBoxes) versionsCache().clear();
});

/** Every version of every public theme (boxed: false). */
export async function publicVersions(): Promise<readonly RollableCandidate[]> {
  return (await versionsCache().getOrLoad('all', publicThemeVersions)) ?? [];
}

/** The public theme ids (those with at least one version). */
export async function publicSlugs(): Promise<Set<string>> {
  return new Set((await publicVersions()).map((v) => v.slug));
}

export async function isPublic(slug: string): Promise<boolean> {
  return (await publicVersions()).some((v) => v.slug === slug);
}

/** The latest version's row id of each public theme id, by id. */
export async function latestPublicVersions(): Promise<Map<string, RollableCandidate>> {
  const bySlug = new Map<string, RollableCandidate[]>();
  for (const v of await publicVersions()) bySlug.set(v.slug, [...(bySlug.get(v.slug) ?? []), v]);
  return new Map([...bySlug].map(([slug, versions]) => [slug, latestOf(versions, (v) => v.version)!]));
}

/**
 * The operator makes a theme id public (CLI `theme:public`); false when it already was. The caller
 * tells every instance (an `allDiceBoxes` invalidation).
 */
export async function makeThemePublic(slug: string): Promise<boolean> {
  return withThemeLocked(slug, async (transaction) => {
    if (!(await versionRows(slug, transaction)).length) throw new NotFoundError(`There is no theme "${slug}".`);
    return markPublic(slug, transaction);
  });
}

/** The operator takes a theme id back from everyone (CLI `theme:private`); the built-in `standard` stays. */
export async function makeThemePrivate(slug: string): Promise<boolean> {
  if (slug === DEFAULT_THEME_ID) throw new ForbiddenError(`The built-in theme "${DEFAULT_THEME_ID}" is always public.`);
  return withThemeLocked(slug, (transaction) => unmarkPublic(slug, transaction));
}
