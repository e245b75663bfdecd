import type { MigrationContext } from '../migrate';

/**
 * `rolls.equation` becomes TEXT. The engine writes the equation from the dice (src/dice/equation.ts), so
 * its length follows from what a valid request may hold, not from a limit of its own: 100 modifiers such as
 * -123456789.123456, or 20 custom dice of 55-character ids, write more than the 1,024 characters of the old
 * varchar, and PostgreSQL answered those valid rolls with a 500 where SQLite (which ignores varchar lengths)
 * stored them. varchar -> text needs no table rewrite on PostgreSQL.
 *
 * SQLite is left alone: it never enforced the length, and Sequelize's changeColumn there rebuilds the table,
 * which would cascade-delete every roll value through their foreign key.
 */
export async function up({ context: { queryInterface: q, dialect, transaction } }: { context: MigrationContext }) {
  if (dialect !== 'postgres') return;
  await q.sequelize.query('ALTER TABLE rolls ALTER COLUMN equation TYPE TEXT', { transaction });
}

export async function down({ context: { queryInterface: q, dialect, transaction } }: { context: MigrationContext }) {
  if (dialect !== 'postgres') return;
  await q.sequelize.query('ALTER TABLE rolls ALTER COLUMN equation TYPE VARCHAR(1024)', { transaction });
}
