import { DataTypes } from 'sequelize';
import type { MigrationContext } from '../migrate';

/**
 * A participant's dice tray (`dice_tray`, the dddice SDK's `{dieType, theme}[][]`: saved rows of dice the
 * board offers as one-click rolls), as JSON text on both dialects; null (every participant before this)
 * reads as an empty tray. Adding a nullable column rewrites nothing on either dialect.
 */
export async function up({ context: { queryInterface: q, transaction } }: { context: MigrationContext }) {
  await q.addColumn('participants', 'dice_tray', { type: DataTypes.TEXT, allowNull: true }, { transaction });
}

export async function down({ context: { queryInterface: q, transaction } }: { context: MigrationContext }) {
  await q.removeColumn('participants', 'dice_tray', { transaction });
}
