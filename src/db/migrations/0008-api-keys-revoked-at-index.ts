import type { MigrationContext } from '../migrate';

/**
 * An index on when keys were revoked: each instance without Redis asks a few times a second which
 * keys were revoked in the last seconds (src/users/revocationWatch.ts), a range read on this index
 * instead of a scan of every key ever issued.
 */
export async function up({ context: { queryInterface: q, transaction } }: { context: MigrationContext }) {
  await q.addIndex('api_keys', ['revoked_at'], { name: 'api_keys_revoked_at', transaction });
}

export async function down({ context: { queryInterface: q, transaction } }: { context: MigrationContext }) {
  await q.removeIndex('api_keys', 'api_keys_revoked_at', { transaction });
}
