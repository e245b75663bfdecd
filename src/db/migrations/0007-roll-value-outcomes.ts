import { DataTypes } from 'sequelize';
import type { MigrationContext } from '../migrate';

/**
 * What the dice engine says of each value beside `is_dropped` (docs/dice.md): a dice pool's success or
 * failure (`8d10>=8f1`), a compounding (`!!`) or penetrating (`!p`) throw. Rolls made before have none
 * of these, which is what false says. Adding a column with a default rewrites nothing on either dialect.
 */
const COLUMNS = ['is_success', 'is_failure', 'is_compounded', 'is_penetrated'];

export async function up({ context: { queryInterface: q, transaction } }: { context: MigrationContext }) {
  for (const column of COLUMNS) {
    await q.addColumn('roll_values', column, { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false }, { transaction });
  }
}

export async function down({ context: { queryInterface: q, transaction } }: { context: MigrationContext }) {
  for (const column of [...COLUMNS].reverse()) await q.removeColumn('roll_values', column, { transaction });
}
