import { DataTypes } from 'sequelize';
import type { MigrationContext } from '../migrate';

/**
 * Provable fairness (docs/fairness.md): ledgers (one per room, one per user for rolls outside rooms),
 * their batches of 256 committed leaves, and on each drawn value the ledger and position of the leaf it
 * used. The unique index on (ledger_id, draw) makes a reused leaf impossible in either dialect; nulls
 * (values a client supplied, modifiers, rolls made before this) are distinct and take no slot.
 */
export async function up({ context: { queryInterface: q, dialect, transaction } }: { context: MigrationContext }) {
  const big = dialect === 'postgres' ? DataTypes.BIGINT : DataTypes.INTEGER;
  await q.createTable(
    'fairness_ledgers',
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
      uuid: { type: DataTypes.UUID, allowNull: false, unique: true },
      /** 'room:{id}' or 'user:{id}': the one ledger of a room, or of a user's rolls outside rooms */
      scope: { type: DataTypes.STRING(64), allowNull: false, unique: true },
      room_id: { type: DataTypes.INTEGER, allowNull: true },
      user_id: { type: DataTypes.INTEGER, allowNull: true },
      /** the next leaf to draw, counted over the ledger's batches (batch = draw / 256, leaf = draw % 256) */
      next_draw: { type: big, allowNull: false, defaultValue: 0 },
      /** batches created (numbered 0..batches-1); leaves below batches * 256 are committed and published */
      batches: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      created_at: { type: DataTypes.DATE, allowNull: false },
      updated_at: { type: DataTypes.DATE, allowNull: false },
    },
    { transaction },
  );
  await q.createTable(
    'fairness_batches',
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
      ledger_id: { type: DataTypes.INTEGER, allowNull: false, references: { model: 'fairness_ledgers', key: 'id' }, onDelete: 'CASCADE' },
      number: { type: DataTypes.INTEGER, allowNull: false },
      /** the Merkle root of the 256 commitments, 32 bytes */
      root: { type: DataTypes.BLOB, allowNull: false },
      /** the 256 leaf secrets, 32 bytes each, in leaf order (8,192 bytes) */
      secrets: { type: DataTypes.BLOB, allowNull: false },
      created_at: { type: DataTypes.DATE, allowNull: false },
    },
    { transaction },
  );
  await q.addIndex('fairness_batches', ['ledger_id', 'number'], { unique: true, name: 'fairness_batches_ledger_number', transaction });
  await q.addColumn('rolls', 'ledger_id', { type: DataTypes.INTEGER, allowNull: true }, { transaction });
  await q.addColumn('rolls', 'client_seed', { type: DataTypes.STRING(64), allowNull: true }, { transaction });
  await q.addColumn('roll_values', 'ledger_id', { type: DataTypes.INTEGER, allowNull: true }, { transaction });
  await q.addColumn('roll_values', 'draw', { type: big, allowNull: true }, { transaction });
  /** N, the faces the draw chose among (the verifier needs it: a theme's die may have any number) */
  await q.addColumn('roll_values', 'draw_faces', { type: DataTypes.INTEGER, allowNull: true }, { transaction });
  await q.addIndex('roll_values', ['ledger_id', 'draw'], { unique: true, name: 'roll_values_ledger_draw', transaction });
}

export async function down({ context: { queryInterface: q, transaction } }: { context: MigrationContext }) {
  await q.removeIndex('roll_values', 'roll_values_ledger_draw', { transaction });
  for (const c of ['draw_faces', 'draw', 'ledger_id']) await q.removeColumn('roll_values', c, { transaction });
  for (const c of ['client_seed', 'ledger_id']) await q.removeColumn('rolls', c, { transaction });
  await q.dropTable('fairness_batches', { transaction });
  await q.dropTable('fairness_ledgers', { transaction });
}
