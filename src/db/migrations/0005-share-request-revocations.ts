import { DataTypes } from 'sequelize';
import type { MigrationContext } from '../migrate';

/**
 * Share links that were revoked (DELETE /share-request/{id}) or whose theme was deleted: the request row
 * goes, its code stays here so that the link answers 410 Gone ("revoked") rather than 404.
 */
export async function up({ context: { queryInterface: q, transaction } }: { context: MigrationContext }) {
  await q.createTable(
    'share_request_revocations',
    {
      code: { type: DataTypes.STRING(64), primaryKey: true, allowNull: false },
      reason: { type: DataTypes.STRING(32), allowNull: false },
      revoked_at: { type: DataTypes.DATE, allowNull: false },
    },
    { transaction },
  );
  // Deleting a theme finds its share requests by theme id.
  await q.addIndex('share_requests', ['theme_slug'], { transaction });
}

export async function down({ context: { queryInterface: q, transaction } }: { context: MigrationContext }) {
  await q.removeIndex('share_requests', ['theme_slug'], { transaction });
  await q.dropTable('share_request_revocations', { transaction });
}
