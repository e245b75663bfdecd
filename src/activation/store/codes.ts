import { QueryTypes } from 'sequelize';
import { db } from '../../db';
import { UniqueViolationError } from '../../db/errors';
import type { Transaction } from '../../users/store';

/**
 * The activation_codes store: the only code that reads or writes the table (migration 0015). Plain
 * statements in both dialects; the write that hands out a key runs in the caller's transaction.
 */

export interface ActivationRecord {
  id: number;
  code: string;
  secretHash: string;
  integration: string | null;
  createdMs: number;
  expiresMs: number;
  approvedUserId: number | null;
  approvedMs: number | null;
  spentMs: number | null;
}

const COLUMNS = `id, code, secret_hash AS "secretHash", integration, created_ms AS "createdMs", expires_ms AS "expiresMs",
  approved_user_id AS "approvedUserId", approved_ms AS "approvedMs", spent_ms AS "spentMs"`;

const numOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));

function toRecord(row: Record<string, unknown>): ActivationRecord {
  return {
    id: Number(row.id),
    code: String(row.code),
    secretHash: String(row.secretHash),
    integration: row.integration === null || row.integration === undefined ? null : String(row.integration),
    createdMs: Number(row.createdMs),
    expiresMs: Number(row.expiresMs),
    approvedUserId: numOrNull(row.approvedUserId),
    approvedMs: numOrNull(row.approvedMs),
    spentMs: numOrNull(row.spentMs),
  };
}

export interface NewActivation {
  code: string;
  secretHash: string;
  integration: string | null;
  createdMs: number;
  expiresMs: number;
}

/**
 * Store a new code; false when the code is taken (the caller draws another). In the same transaction,
 * rows that expired over `keepMs` ago go: the table holds what can still be polled, and a little more
 * so that a late poll hears 410 rather than 404.
 */
export async function insertActivation(a: NewActivation, keepMs: number): Promise<boolean> {
  try {
    await db().sql.transaction(async (query) => {
      await query('DELETE FROM activation_codes WHERE expires_ms < $1', [a.createdMs - keepMs]);
      await query('INSERT INTO activation_codes (code, secret_hash, integration, created_ms, expires_ms) VALUES ($1, $2, $3, $4, $5)', [
        a.code,
        a.secretHash,
        a.integration,
        a.createdMs,
        a.expiresMs,
      ]);
    });
    return true;
  } catch (err) {
    if (err instanceof UniqueViolationError) return false;
    throw err;
  }
}

/** Codes not yet expired: bounded, so that a flood from many addresses cannot fill the table. */
export async function countLiveActivations(now: number): Promise<number> {
  const [row] = await db().sql.query<{ n: unknown }>('SELECT COUNT(*) AS n FROM activation_codes WHERE expires_ms > $1', [now]);
  return Number(row?.n ?? 0);
}

export async function findActivationByCode(code: string): Promise<ActivationRecord | null> {
  const [row] = await db().sql.query(`SELECT ${COLUMNS} FROM activation_codes WHERE code = $1`, [code]);
  return row ? toRecord(row) : null;
}

/**
 * Approve a live, unapproved code for a user: one statement, so two approvals at once cannot both
 * pass. Answers whether this one did.
 */
export async function approveActivation(id: number, userId: number, now: number): Promise<boolean> {
  const rows = await db().sql.transaction((query) =>
    query(
      'UPDATE activation_codes SET approved_user_id = $1, approved_ms = $2 WHERE id = $3 AND approved_user_id IS NULL AND spent_ms IS NULL AND expires_ms > $2 RETURNING id',
      [userId, now, id],
    ),
  );
  return rows.length === 1;
}

/**
 * Mark an approved, live code spent in `transaction`, answering the approving user's id, or null when
 * it is not (any more) to be spent. The row stays locked until the transaction ends (PostgreSQL; on
 * SQLite write transactions run one at a time), so a concurrent poll waits, then finds it spent.
 */
export async function spendActivation(id: number, now: number, transaction: Transaction): Promise<number | null> {
  const rows = await db().sequelize.query<{ userId: unknown }>(
    'UPDATE activation_codes SET spent_ms = :now WHERE id = :id AND approved_user_id IS NOT NULL AND spent_ms IS NULL AND expires_ms > :now RETURNING approved_user_id AS "userId"',
    { replacements: { id, now }, type: QueryTypes.SELECT, transaction },
  );
  return rows[0] ? Number(rows[0].userId) : null;
}

export async function recordIssuedKey(id: number, apiKeyId: number, transaction: Transaction): Promise<void> {
  await db().sequelize.query('UPDATE activation_codes SET api_key_id = :apiKeyId WHERE id = :id', { replacements: { id, apiKeyId }, transaction });
}
