import { DataTypes } from 'sequelize';
import type { MigrationContext } from '../migrate';

/**
 * Page keys (src/accounts/pageKey.ts): the API key a signed-in browser's pages call /api/1.0 with.
 * - `api_keys.web_session_id`: the session (sessions.id) the key was made for; the key is revoked in
 *   the transaction that ends that session (sign-out, password change, a 21st browser). No foreign
 *   key: the key row outlives the session as a revoked key, as every revoked key does.
 * - `api_keys.expires_ms`: when the key stops working by itself (epoch ms; null: never). A page key
 *   ends with its session's 30 days even when nobody signs in again to clear the session away.
 */
export async function up({ context: { queryInterface: q, dialect, transaction } }: { context: MigrationContext }) {
  await q.addColumn('api_keys', 'web_session_id', { type: dialect === 'postgres' ? DataTypes.BIGINT : DataTypes.INTEGER, allowNull: true }, { transaction });
  await q.addColumn('api_keys', 'expires_ms', { type: DataTypes.BIGINT, allowNull: true }, { transaction });
  await q.addIndex('api_keys', ['web_session_id'], { name: 'api_keys_web_session_id', transaction });
}

export async function down({ context: { queryInterface: q, transaction } }: { context: MigrationContext }) {
  await q.removeIndex('api_keys', 'api_keys_web_session_id', { transaction });
  await q.removeColumn('api_keys', 'expires_ms', { transaction });
  await q.removeColumn('api_keys', 'web_session_id', { transaction });
}
