import { randomBytes } from 'node:crypto';
import { DataTypes } from 'sequelize';
import type { MigrationContext } from '../migrate';

/**
 * Accounts people sign in to (src/accounts):
 * - `users.password_hash`: an argon2id hash (PHC string), null for guests and for users made by the CLI
 *   without a password (they cannot sign in on the web);
 * - `sessions`: a signed-in browser, found by the sha256 of its cookie's token (the token itself is
 *   never stored), so every instance serves every session and a copy of the table signs nobody in;
 * - `server_secrets`: the key that signs the signed-out forms' CSRF tokens, made here once so every
 *   instance shares it without an operator having to set one;
 * - `api_keys.last_used_at`: shown in the developer settings.
 * Times are epoch ms (BIGINT) where they are compared, as the outbox's: both dialects compare numbers alike.
 */
export async function up({ context: { queryInterface: q, dialect, transaction } }: { context: MigrationContext }) {
  await q.addColumn('users', 'password_hash', { type: DataTypes.STRING(255), allowNull: true }, { transaction });
  await q.addColumn('api_keys', 'last_used_at', { type: DataTypes.DATE, allowNull: true }, { transaction });
  await q.createTable(
    'sessions',
    {
      id: { type: dialect === 'postgres' ? DataTypes.BIGINT : DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
      token_hash: { type: DataTypes.STRING(64), allowNull: false, unique: true },
      user_id: { type: DataTypes.INTEGER, allowNull: false, references: { model: 'users', key: 'id' }, onDelete: 'CASCADE' },
      created_ms: { type: DataTypes.BIGINT, allowNull: false },
      expires_ms: { type: DataTypes.BIGINT, allowNull: false },
    },
    { transaction },
  );
  await q.addIndex('sessions', ['user_id'], { name: 'sessions_user_id', transaction });
  await q.createTable(
    'server_secrets',
    {
      name: { type: DataTypes.STRING(64), primaryKey: true, allowNull: false },
      value: { type: DataTypes.STRING(128), allowNull: false },
    },
    { transaction },
  );
  await q.bulkInsert('server_secrets', [{ name: 'csrf', value: randomBytes(32).toString('hex') }], { transaction });
}

export async function down({ context: { queryInterface: q, transaction } }: { context: MigrationContext }) {
  await q.dropTable('server_secrets', { transaction });
  await q.dropTable('sessions', { transaction });
  await q.removeColumn('api_keys', 'last_used_at', { transaction });
  await q.removeColumn('users', 'password_hash', { transaction });
}
