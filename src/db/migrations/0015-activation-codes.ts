import { DataTypes } from 'sequelize';
import type { MigrationContext } from '../migrate';

/**
 * Activation codes (src/activation): dddice's device login. An integration asks for a code and a
 * secret (POST /api/1.0/activate), a signed-in person approves the code at /activate, and the
 * integration's next poll with the secret receives a new API key, once.
 * - `code`: what the person types (6 characters); unique while the row exists (rows go an hour after
 *   they expire);
 * - `secret_hash`: the sha256 of the secret (the secret itself is never stored);
 * - `integration`: the X-Extension header it was made with, which names it on the page and labels the key;
 * - `approved_user_id`, `approved_ms`: who approved it, when; `spent_ms`: when its key was handed out;
 *   `api_key_id`: that key.
 * Times are epoch ms (BIGINT), compared as numbers by both dialects, as the sessions' are.
 */
export async function up({ context: { queryInterface: q, dialect, transaction } }: { context: MigrationContext }) {
  await q.createTable(
    'activation_codes',
    {
      id: { type: dialect === 'postgres' ? DataTypes.BIGINT : DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
      code: { type: DataTypes.STRING(16), allowNull: false, unique: true },
      secret_hash: { type: DataTypes.STRING(64), allowNull: false },
      integration: { type: DataTypes.STRING(64), allowNull: true },
      created_ms: { type: DataTypes.BIGINT, allowNull: false },
      expires_ms: { type: DataTypes.BIGINT, allowNull: false },
      approved_user_id: { type: DataTypes.INTEGER, allowNull: true, references: { model: 'users', key: 'id' }, onDelete: 'CASCADE' },
      approved_ms: { type: DataTypes.BIGINT, allowNull: true },
      spent_ms: { type: DataTypes.BIGINT, allowNull: true },
      api_key_id: { type: DataTypes.INTEGER, allowNull: true, references: { model: 'api_keys', key: 'id' }, onDelete: 'SET NULL' },
    },
    { transaction },
  );
  await q.addIndex('activation_codes', ['expires_ms'], { name: 'activation_codes_expires_ms', transaction });
}

export async function down({ context: { queryInterface: q, transaction } }: { context: MigrationContext }) {
  await q.dropTable('activation_codes', { transaction });
}
