import { QueryTypes, type Transaction } from 'sequelize';
import { db } from '../../db';

/** Why a share link stopped working for good. */
export type RevocationReason = 'revoked' | 'theme_deleted';

/** Remember codes that no longer work, so that their links answer 410 rather than 404. */
export async function recordRevocations(codes: string[], reason: RevocationReason, transaction: Transaction): Promise<void> {
  const now = new Date();
  for (const code of codes) {
    await db().sequelize.query('INSERT INTO share_request_revocations (code, reason, revoked_at) VALUES (:code, :reason, :now) ON CONFLICT (code) DO NOTHING', {
      replacements: { code, reason, now },
      transaction,
    });
  }
}

/** Why a code no longer works, or null when it never did. */
export async function revocationOf(code: string, transaction?: Transaction): Promise<RevocationReason | null> {
  const rows = await db().sequelize.query<{ reason: RevocationReason }>('SELECT reason FROM share_request_revocations WHERE code = :code', {
    replacements: { code },
    type: QueryTypes.SELECT,
    transaction,
  });
  return rows[0]?.reason ?? null;
}
