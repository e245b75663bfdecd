import type { Transaction } from 'sequelize';
import { scalar } from '../../db/scalar';

/**
 * What a user holds of rooms, for the per-user quotas (src/users/quotas.ts, which receives these at
 * start-up: users imports no other feature). Each runs inside the checking transaction, after the
 * user's quota lock.
 */

export const roomQuotaCounts = {
  /** Live rooms the user owns (deleted ones hold nothing). */
  roomsOwned: (userId: number, transaction: Transaction) =>
    scalar('SELECT COUNT(*) AS n FROM rooms WHERE user_id = :userId AND deleted_at IS NULL', { userId }, transaction),

  /** Live rooms of others the user is a participant of. */
  roomsJoined: (userId: number, transaction: Transaction) =>
    scalar(
      `SELECT COUNT(*) AS n FROM participants p JOIN rooms r ON r.id = p.room_id
       WHERE p.user_id = :userId AND r.user_id <> :userId AND r.deleted_at IS NULL`,
      { userId },
      transaction,
    ),

  /** Bytes of the backgrounds of the user's live rooms, but for room `exceptRoomId`'s (the one an upload replaces). */
  roomBackgroundBytes: (userId: number, exceptRoomId: number | null, transaction: Transaction) =>
    scalar(
      `SELECT COALESCE(SUM(b.size), 0) AS n FROM room_backgrounds b JOIN rooms r ON r.id = b.room_id
       WHERE r.user_id = :userId AND r.deleted_at IS NULL AND r.id <> :replacing`,
      { userId, replacing: exceptRoomId ?? 0 },
      transaction,
    ),
};
