import { DataTypes } from 'sequelize';
import type { MigrationContext } from '../migrate';

/**
 * The outbox: what was committed and must still be announced (src/outbox). A row is written in the
 * transaction of the change it announces and deleted once announced; rows left behind by an instance
 * that died are announced by another (the sweeper). `payload` holds ids (JSON), never presented data.
 */
export async function up({ context: { queryInterface: q, dialect, transaction } }: { context: MigrationContext }) {
  await q.createTable(
    'outbox',
    {
      // SQLite: INTEGER PRIMARY KEY is the rowid (autoincrement); PostgreSQL: bigserial (rows come and go fast).
      id: { type: dialect === 'postgres' ? DataTypes.BIGINT : DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
      event: { type: DataTypes.STRING(64), allowNull: false },
      payload: { type: DataTypes.TEXT, allowNull: false },
      /** Epoch ms: compared as numbers by both dialects. */
      created_ms: { type: DataTypes.BIGINT, allowNull: false },
      /** Epoch ms until which a sweeper holds the row (null: nobody). */
      claimed_until_ms: { type: DataTypes.BIGINT, allowNull: true },
    },
    { transaction },
  );
}

export async function down({ context: { queryInterface: q, transaction } }: { context: MigrationContext }) {
  await q.dropTable('outbox', { transaction });
}
