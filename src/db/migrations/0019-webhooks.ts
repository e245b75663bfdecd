import { DataTypes } from 'sequelize';
import type { MigrationContext } from '../migrate';

/**
 * Webhooks (src/webhooks, docs/webhooks.md):
 * - `webhooks`: an endpoint a user registered, its signing secret (kept as given: the server signs with
 *   it, so it cannot be a hash), the secret it replaced while that one still signs, and why it was disabled;
 * - `webhook_deliveries`: the queue and its log in one table: one row per event and webhook, written
 *   before anything is sent, claimed by one instance at a time (`claimed_until_ms`, a lease that a
 *   crashed instance lets expire), retried until `next_attempt_ms`, kept as the delivery log.
 * Times that are compared are epoch ms (BIGINT), as the outbox's.
 */
export async function up({ context: { queryInterface: q, dialect, transaction } }: { context: MigrationContext }) {
  const bigId = dialect === 'postgres' ? DataTypes.BIGINT : DataTypes.INTEGER;
  await q.createTable(
    'webhooks',
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
      uuid: { type: DataTypes.STRING(36), allowNull: false, unique: true },
      user_id: { type: DataTypes.INTEGER, allowNull: false, references: { model: 'users', key: 'id' }, onDelete: 'CASCADE' },
      room_id: { type: DataTypes.INTEGER, allowNull: true, references: { model: 'rooms', key: 'id' }, onDelete: 'CASCADE' },
      url: { type: DataTypes.STRING(2048), allowNull: false },
      /** JSON array of event names, or ["*"]. */
      events: { type: DataTypes.TEXT, allowNull: false },
      format: { type: DataTypes.STRING(16), allowNull: false },
      visibility: { type: DataTypes.STRING(16), allowNull: false },
      secret: { type: DataTypes.STRING(128), allowNull: false },
      previous_secret: { type: DataTypes.STRING(128), allowNull: true },
      previous_secret_until_ms: { type: DataTypes.BIGINT, allowNull: true },
      is_active: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
      disabled_reason: { type: DataTypes.STRING(255), allowNull: true },
      /** Events failed in a row (every attempt spent): 20 disable the webhook. */
      failed_in_row: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      created_ms: { type: DataTypes.BIGINT, allowNull: false },
      updated_ms: { type: DataTypes.BIGINT, allowNull: false },
    },
    { transaction },
  );
  await q.addIndex('webhooks', ['user_id'], { name: 'webhooks_user_id', transaction });
  await q.addIndex('webhooks', ['room_id'], { name: 'webhooks_room_id', transaction });

  await q.createTable(
    'webhook_deliveries',
    {
      id: { type: bigId, primaryKey: true, autoIncrement: true, allowNull: false },
      webhook_id: { type: DataTypes.INTEGER, allowNull: false, references: { model: 'webhooks', key: 'id' }, onDelete: 'CASCADE' },
      /** The Standard Webhooks message id (`webhook-id`): the same on every attempt. */
      event_id: { type: DataTypes.STRING(64), allowNull: false },
      event_type: { type: DataTypes.STRING(32), allowNull: false },
      /** Ids of what the event is about (JSON), presented when first sent. */
      payload: { type: DataTypes.TEXT, allowNull: false },
      /** The body as first sent: retries send the same bytes. */
      body: { type: DataTypes.TEXT, allowNull: true },
      /** pending, delivered, failed, skipped (the owner may no longer see it, or the format has no message for it). */
      status: { type: DataTypes.STRING(16), allowNull: false },
      attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      next_attempt_ms: { type: DataTypes.BIGINT, allowNull: true },
      claimed_until_ms: { type: DataTypes.BIGINT, allowNull: true },
      last_status_code: { type: DataTypes.INTEGER, allowNull: true },
      last_error: { type: DataTypes.STRING(255), allowNull: true },
      /** At most 1 KiB of the last answer's body. */
      last_response: { type: DataTypes.STRING(1024), allowNull: true },
      duration_ms: { type: DataTypes.INTEGER, allowNull: true },
      created_ms: { type: DataTypes.BIGINT, allowNull: false },
      finished_ms: { type: DataTypes.BIGINT, allowNull: true },
    },
    { transaction },
  );
  // One row per event and webhook: an event enqueued twice (its command and the outbox's net) is one delivery.
  await q.addIndex('webhook_deliveries', ['webhook_id', 'event_id'], { name: 'webhook_deliveries_event', unique: true, transaction });
  await q.addIndex('webhook_deliveries', ['status', 'next_attempt_ms'], { name: 'webhook_deliveries_due', transaction });
}

export async function down({ context: { queryInterface: q, transaction } }: { context: MigrationContext }) {
  await q.dropTable('webhook_deliveries', { transaction });
  await q.dropTable('webhooks', { transaction });
}
