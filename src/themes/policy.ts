import { ForbiddenError } from '../errors';
import { latestOf } from './versions';

/** Whoever acts: only the id matters to these rules. */
type User = { id: number };

/** Who may do what with a theme. Facts are looked up by the caller; these only decide. */
export function ownsTheme(user: Pick<User, 'id'>, ownerId: number): boolean {
  return user.id === ownerId;
}

/** Publishing a version of an existing id, and deleting a theme, are for its owner only. */
export function authorizeThemeOwner(user: Pick<User, 'id'>, ownerId: number, slug: string, action: 'publish' | 'delete'): void {
  if (ownsTheme(user, ownerId)) return;
  throw new ForbiddenError(
    action === 'publish'
      ? `The theme id "${slug}" belongs to another user: only its owner can publish versions of it. Choose another id.`
      : `Only the owner of the theme "${slug}" can delete it.`,
  );
}

/** A theme can serve as a base (`extend`) when it is the caller's, a public one (the built-in ones), or in the caller's dice box. */
export function canExtend(facts: { owns: boolean; isPublic: boolean; inDiceBox: boolean }): boolean {
  return facts.owns || facts.isPublic || facts.inDiceBox;
}

/**
 * Who sees a theme without a key (its preview page and that page's JSON): a public theme (the built-in
 * ones) is everyone's;
 * any other theme only with a live share link of that very theme. With a key any theme can be read by id
 * (read.ts), but a keyless page is open to the whole web, and theme ids are easy to guess.
 */
export function canPreviewWithoutKey(facts: { isPublic: boolean; sharedByLink: boolean }): boolean {
  return facts.isPublic || facts.sharedByLink;
}

/** What names a theme version for the dice cache: id, slug and version together (a row id alone could in
 * principle name another row in another database). */
export interface ThemeVersionKey {
  id: number;
  slug: string;
  version: string;
}

/**
 * Which version of each theme a user may roll with: the version pinned in their dice box; a public theme
 * (the built-in ones among them: in every box without a row) at its latest version unless the box pins
 * one. `candidates` are the box's versions (`boxed`) and the public themes' versions.
 */
export function rollableVersions(candidates: readonly (ThemeVersionKey & { boxed: boolean })[]): Map<string, ThemeVersionKey> {
  const out = new Map<string, ThemeVersionKey>();
  const everyones = new Map<string, ThemeVersionKey[]>();
  for (const c of candidates) {
    const key = { id: c.id, slug: c.slug, version: c.version };
    if (c.boxed) out.set(c.slug, key);
    else everyones.set(c.slug, [...(everyones.get(c.slug) ?? []), key]);
  }
  for (const [slug, versions] of everyones) {
    if (out.has(slug)) continue;
    const latest = latestOf(versions, (v) => v.version);
    if (latest) out.set(slug, latest);
  }
  return out;
}
