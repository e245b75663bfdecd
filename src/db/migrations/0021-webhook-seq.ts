import { DataTypes } from 'sequelize';
import type { MigrationContext } from '../migrate';

/**
 * Webhook deliveries carry their event's room seq (docs/webhooks.md, "Order and seq"):
 * - `seq`: the number the realtime layer gave the event in its room, written once it is known (after
 *   the commit that recorded the delivery); null for events outside rooms and events never numbered;
 * - an index on `event_id`, by which that number is written to every delivery of the event.
 */
export async function up({ context: { queryInterface: q, transaction } }: { context: MigrationContext }) {
  await q.addColumn('webhook_deliveries', 'seq', { type: DataTypes.BIGINT, allowNull: true }, { transaction });
  await q.addIndex('webhook_deliveries', ['event_id'], { name: 'webhook_deliveries_event_id', transaction });
}

export async function down({ context: { queryInterface: q, transaction } }: { context: MigrationContext }) {
  await q.removeIndex('webhook_deliveries', 'webhook_deliveries_event_id', { transaction });
  await q.removeColumn('webhook_deliveries', 'seq', { transaction });
}
