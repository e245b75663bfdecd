import type { Transaction } from 'sequelize';
import { scalar } from '../../db/scalar';

/**
 * What a user holds of themes and share requests, for the per-user quotas (src/users/quotas.ts, which
 * receives these at start-up: users imports no other feature). Each runs inside the checking
 * transaction, after the user's quota lock.
 */

export const themeQuotaCounts = {
  /** Theme ids the user owns (all versions of one id count once). */
  themesOwned: (userId: number, transaction: Transaction) =>
    scalar('SELECT COUNT(DISTINCT slug) AS n FROM themes WHERE user_id = :userId', { userId }, transaction),

  /** Bytes of every file of every version of the user's themes (a version stores its own copy of what it inherits). */
  themeAssetBytes: (userId: number, transaction: Transaction) =>
    scalar('SELECT COALESCE(SUM(a.size), 0) AS n FROM theme_assets a JOIN themes t ON t.id = a.theme_id WHERE t.user_id = :userId', { userId }, transaction),

  /** Share requests the user has not revoked (expired and used-up ones count: they are still stored). */
  shareRequests: (userId: number, transaction: Transaction) =>
    scalar('SELECT COUNT(*) AS n FROM share_requests WHERE user_id = :userId', { userId }, transaction),
};
