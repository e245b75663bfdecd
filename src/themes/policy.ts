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

/** A theme can serve as a base (`extend`) when it is the caller's, the built-in one, or in the caller's dice box. */
export function canExtend(facts: { owns: boolean; isDefault: boolean; inDiceBox: boolean }): boolean {
  return facts.owns || facts.isDefault || facts.inDiceBox;
}

/**
 * Who sees a theme without a key (its preview page and that page's JSON): the built-in theme is everyone's;
 * any other theme only with a live share link of that very theme. With a key any theme can be read by id
 * (read.ts), but a keyless page is open to the whole web, and theme ids are easy to guess.
 */
export function canPreviewWithoutKey(facts: { isDefault: boolean; sharedByLink: boolean }): boolean {
  return facts.isDefault || facts.sharedByLink;
}

/** What names a theme version for the dice cache: id, slug and version together (a row id alone could in
 * principle name another row in another database). */
export interface ThemeVersionKey {
  id: number;
  slug: string;
  version: string;
}

/**
 * Which version of each theme a user may roll with: the version pinned in their dice box; the built-in
 * theme (in every box without a row) at its latest version unless the box pins one. `candidates` are
 * the box's versions (`boxed`) and the built-in theme's versions.
 */
export function rollableVersions(candidates: readonly (ThemeVersionKey & { boxed: boolean })[], builtInSlug: string): Map<string, ThemeVersionKey> {
  const out = new Map<string, ThemeVersionKey>();
  for (const c of candidates) if (c.boxed) out.set(c.slug, { id: c.id, slug: c.slug, version: c.version });
  if (!out.has(builtInSlug)) {
    const builtIn = candidates.filter((c) => !c.boxed).map((c) => ({ id: c.id, slug: c.slug, version: c.version }));
    const latest = latestOf(builtIn, (v) => v.version);
    if (latest) out.set(builtInSlug, latest);
  }
  return out;
}
