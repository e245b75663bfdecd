import { requireRoomBySlug } from '../rooms/access';
import { authorizeHistory } from './policy';
import { loadRolls } from './store/load';
import type { RollRecord, UserRecord } from './store/records';
import { visibleRollIdInRoom, visibleRollIdsInRoom } from './store/visible';

export interface HistoryPage {
  /** the page's rolls, newest first, each one the viewer may see */
  rolls: RollRecord[];
  /** the uuid to continue after (the page's last roll), or null on the last page */
  nextBefore: string | null;
}

/**
 * GET /room/{slug}/roll: the room's history for its participants, newest first, cursor-paged: the
 * rolls before `before` (a roll uuid) that `user` may see, at most `limit`; only those labelled
 * `externalId` when it is given (many rolls may share one: D&D Beyond labels every roll of a character).
 */
export async function readRoomHistory(
  user: Pick<UserRecord, 'id'>,
  slug: string,
  page: { before?: string; limit: number; externalId?: string },
): Promise<HistoryPage> {
  const { before, limit } = page;
  const room = await requireRoomBySlug(slug);
  authorizeHistory(room, user.id);
  // A cursor that is not (or no longer) a roll of this room has nothing after it: the table was cleared.
  // One the caller may not see (a whisper for someone else) is no cursor either: it confirms nothing.
  const beforeId = before ? await visibleRollIdInRoom(before, room.id, user.id) : null;
  const ids = before && beforeId === null ? [] : await visibleRollIdsInRoom(room.id, user.id, beforeId, limit, page.externalId ?? null);
  const rolls = await loadRolls(ids.slice(0, limit));
  return { rolls, nextBefore: ids.length > limit ? (rolls[rolls.length - 1]?.uuid ?? null) : null };
}
