import { ForbiddenError } from '../errors';
import type { User } from '../db/models';

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
