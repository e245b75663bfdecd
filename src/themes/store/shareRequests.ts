/**
 * The share requests store: every read and write of `share_requests` and `share_request_revocations`.
 * Returns plain records.
 */
import { Op, QueryTypes, col, literal } from 'sequelize';
import { db, models } from '../../db';
import { plain, type RevocationReason, type ShareRequestRecord, type ThemesTransaction } from './records';

const withUser = () => [{ model: models().User, as: 'user' }];

export type NewShareRequest = Pick<ShareRequestRecord, 'id' | 'code' | 'userId' | 'themeSlug' | 'expiresAt' | 'maxUses'>;

export async function insertShareRequest(values: NewShareRequest, transaction: ThemesTransaction): Promise<ShareRequestRecord> {
  return plain<ShareRequestRecord>(await models().ShareRequest.create(values, { transaction }))!;
}

/** A user's share requests with their sharer, newest first, one page, and how many there are. */
export async function listShareRequestsOf(userId: number, page: number, perPage: number): Promise<{ rows: ShareRequestRecord[]; count: number }> {
  const { rows, count } = await models().ShareRequest.findAndCountAll({
    where: { userId },
    include: withUser(),
    order: [
      ['createdAt', 'DESC'],
      ['id', 'ASC'],
    ],
    limit: perPage,
    offset: (page - 1) * perPage,
  });
  return { rows: rows.map((r) => plain<ShareRequestRecord>(r)!), count };
}

/** A share request by id, with its sharer, or null. */
export async function findShareRequest(id: string, transaction?: ThemesTransaction): Promise<ShareRequestRecord | null> {
  return plain(await models().ShareRequest.findByPk(id, { include: withUser(), transaction }));
}

/** A share request by code, with its sharer, or null. */
export async function findShareRequestByCode(code: string, transaction?: ThemesTransaction): Promise<ShareRequestRecord | null> {
  return plain(await models().ShareRequest.findOne({ where: { code }, include: withUser(), transaction }));
}

/** Change a share request's limits; answers it as stored now (null when it is gone). */
export async function updateShareRequestLimits(
  id: string,
  values: Partial<Pick<ShareRequestRecord, 'expiresAt' | 'maxUses'>>,
): Promise<ShareRequestRecord | null> {
  const row = await models().ShareRequest.findByPk(id, { include: withUser() });
  if (!row) return null;
  await row.update(values);
  return plain(row);
}

export async function deleteShareRequest(id: string, transaction: ThemesTransaction): Promise<void> {
  await models().ShareRequest.destroy({ where: { id }, transaction });
}

/** The codes of a theme's share requests. */
export async function shareCodesOfTheme(themeSlug: string, transaction: ThemesTransaction): Promise<string[]> {
  const rows = await models().ShareRequest.findAll({ where: { themeSlug }, attributes: ['id', 'code'], transaction });
  return rows.map((r) => r.code);
}

export async function deleteShareRequestsOfTheme(themeSlug: string, transaction: ThemesTransaction): Promise<void> {
  await models().ShareRequest.destroy({ where: { themeSlug }, transaction });
}

/**
 * Count one use of a link while it is neither used up nor expired at `now`: a conditional UPDATE, so
 * of two simultaneous accepts of a link with one use left exactly one counts. Whether it counted.
 */
export async function countShareUse(id: string, now: Date, transaction: ThemesTransaction): Promise<boolean> {
  const [counted] = await models().ShareRequest.update(
    { uses: literal('uses + 1') as unknown as number },
    {
      where: {
        id,
        [Op.and]: [
          { [Op.or]: [{ maxUses: null }, { uses: { [Op.lt]: col('max_uses') } }] },
          { [Op.or]: [{ expiresAt: null }, { expiresAt: { [Op.gt]: now } }] },
        ],
      },
      transaction,
    },
  );
  return counted === 1;
}

/** Remember codes that no longer work, so that their links answer 410 rather than 404. */
export async function recordRevocations(codes: string[], reason: RevocationReason, transaction: ThemesTransaction): Promise<void> {
  const now = new Date();
  for (const code of codes) {
    await db().sequelize.query('INSERT INTO share_request_revocations (code, reason, revoked_at) VALUES (:code, :reason, :now) ON CONFLICT (code) DO NOTHING', {
      replacements: { code, reason, now },
      transaction,
    });
  }
}

/** Why a code no longer works, or null when it never did. */
export async function revocationOf(code: string, transaction?: ThemesTransaction): Promise<RevocationReason | null> {
  const rows = await db().sequelize.query<{ reason: RevocationReason }>('SELECT reason FROM share_request_revocations WHERE code = :code', {
    replacements: { code },
    type: QueryTypes.SELECT,
    transaction,
  });
  return rows[0]?.reason ?? null;
}
