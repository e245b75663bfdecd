import { DataTypes } from 'sequelize';
import type { MigrationContext } from '../migrate';

/**
 * `rolls.external_id` is a label integrations find their rolls by, not a key: D&D Beyond sends one per
 * character on every roll, Foundry one per chat message for its attack and its damage. Its unique index
 * (user_id, external_id) becomes a plain one (rolls keep their external_id; it also serves user_id
 * lookups, such as a user's deletion), and (room_id, external_id) serves a room's history filtered by it.
 *
 * Safe retries get the `Idempotency-Key` header instead: `idempotency_keys` holds, per user and key, the
 * fingerprint of the request and, once it succeeded, its answer (src/rolls/idempotency/). A row lives 24
 * hours (`expires_at`, indexed for the sweep).
 */
const OLD_INDEX = 'rolls_user_id_external_id';
const ROOM_INDEX = 'rolls_room_id_external_id';

export async function up({ context: { queryInterface: q, transaction } }: { context: MigrationContext }) {
  // Plain SQL: the same statement on both dialects, and no table rebuild on SQLite.
  await q.sequelize.query(`DROP INDEX IF EXISTS ${OLD_INDEX}`, { transaction });
  await q.addIndex('rolls', ['user_id', 'external_id'], { name: OLD_INDEX, transaction });
  await q.addIndex('rolls', ['room_id', 'external_id'], { name: ROOM_INDEX, transaction });

  await q.createTable(
    'idempotency_keys',
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
      user_id: { type: DataTypes.INTEGER, allowNull: false, references: { model: 'users', key: 'id' }, onDelete: 'CASCADE' },
      key: { type: DataTypes.STRING(255), allowNull: false },
      // sha256 (hex) of the method, path and body of the first request with this key
      fingerprint: { type: DataTypes.STRING(64), allowNull: false },
      // once the first request succeeded: its status and JSON body (while it is in flight, status is null
      // and body holds the random token of the request that holds the key)
      status: { type: DataTypes.INTEGER, allowNull: true },
      body: { type: DataTypes.TEXT, allowNull: true },
      created_at: { type: DataTypes.DATE, allowNull: false },
      expires_at: { type: DataTypes.DATE, allowNull: false },
    },
    { transaction },
  );
  await q.addIndex('idempotency_keys', ['user_id', 'key'], { unique: true, name: 'idempotency_keys_user_id_key', transaction });
  await q.addIndex('idempotency_keys', ['expires_at'], { name: 'idempotency_keys_expires_at', transaction });
}

export async function down({ context: { queryInterface: q, transaction } }: { context: MigrationContext }) {
  await q.dropTable('idempotency_keys', { transaction });
  await q.sequelize.query(`DROP INDEX IF EXISTS ${ROOM_INDEX}`, { transaction });
  // Only possible while no user has two rolls with one external_id.
  await q.sequelize.query(`DROP INDEX IF EXISTS ${OLD_INDEX}`, { transaction });
  await q.addIndex('rolls', ['user_id', 'external_id'], { unique: true, name: OLD_INDEX, transaction });
}
