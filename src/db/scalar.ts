import { QueryTypes, type Transaction } from 'sequelize';
import { db } from './index';

/**
 * One number from SQL whose single row names it `n` (`:name` replacements), in `transaction`.
 * PostgreSQL answers COUNT and SUM as strings (bigint); none at all reads as 0. For the stores' counts.
 */
export async function scalar(sql: string, replacements: Record<string, unknown>, transaction: Transaction): Promise<number> {
  const [row] = await db().sequelize.query<{ n: string | number | null }>(sql, { replacements, transaction, type: QueryTypes.SELECT });
  return Number(row?.n ?? 0);
}
