import { ForbiddenError, NotFoundError } from '../../errors';
import type { ShareRequestRecord as ShareRequest, ThemeRecord as Theme } from '../store/records';

/** Whoever acts: only the id matters to these rules. */
type User = { id: number };

export type ShareRequestState = 'active' | 'expired' | 'used_up';

/** Whether a link still works at `now` (revoked links have no row: see store/shareRequests.ts). */
export function shareRequestState(request: Pick<ShareRequest, 'expiresAt' | 'maxUses' | 'uses'>, now: Date): ShareRequestState {
  if (request.expiresAt && new Date(request.expiresAt).getTime() <= now.getTime()) return 'expired';
  if (request.maxUses !== null && request.maxUses !== undefined && request.uses >= request.maxUses) return 'used_up';
  return 'active';
}

export function ownsShareRequest(user: Pick<User, 'id'>, request: Pick<ShareRequest, 'userId'>): boolean {
  return user.id === request.userId;
}

/** Only a theme's owner shares it (the built-in theme's owner has no key: nobody can). */
export function authorizeThemeShare(user: Pick<User, 'id'>, theme: Pick<Theme, 'userId' | 'slug'>): void {
  if (user.id !== theme.userId) throw new ForbiddenError(`Only the owner of the theme "${theme.slug}" can share it.`);
}

/** Someone else's share request is not found: its id tells nothing about it. */
export function authorizeShareRequestOwner(user: Pick<User, 'id'>, request: Pick<ShareRequest, 'userId'>): void {
  if (!ownsShareRequest(user, request)) throw new NotFoundError('There is no such share request.');
}
