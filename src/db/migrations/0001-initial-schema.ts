import { DataTypes } from 'sequelize';
import type { MigrationContext } from '../migrate';

/**
 * The whole data model of the spec. Later migrations add to it; this file never changes once
 * released. JSON columns are JSON on PostgreSQL and TEXT on SQLite (Sequelize converts).
 */
const id = { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false };
const timestamps = {
  created_at: { type: DataTypes.DATE, allowNull: false },
  updated_at: { type: DataTypes.DATE, allowNull: false },
};
const ref = (table: string, onDelete: 'CASCADE' | 'SET NULL' = 'CASCADE', allowNull = false) => ({
  type: DataTypes.INTEGER,
  allowNull,
  references: { model: table, key: 'id' },
  onDelete,
});

export async function up({ context: { queryInterface: q, transaction } }: { context: MigrationContext }) {
  await q.createTable(
    'users',
    {
      id,
      uuid: { type: DataTypes.UUID, allowNull: false, unique: true },
      username: { type: DataTypes.STRING(64), allowNull: false, unique: true },
      name: { type: DataTypes.STRING(255), allowNull: false },
      is_registered: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      ...timestamps,
    },
    { transaction },
  );

  await q.createTable(
    'api_keys',
    {
      id,
      user_id: ref('users'),
      name: { type: DataTypes.STRING(255), allowNull: false, defaultValue: 'default' },
      prefix: { type: DataTypes.STRING(16), allowNull: false },
      key_hash: { type: DataTypes.STRING(64), allowNull: false, unique: true },
      revoked_at: { type: DataTypes.DATE, allowNull: true },
      ...timestamps,
    },
    { transaction },
  );
  await q.addIndex('api_keys', ['user_id'], { transaction });
  await q.addIndex('api_keys', ['prefix'], { transaction });

  await q.createTable(
    'themes',
    {
      id,
      slug: { type: DataTypes.STRING(100), allowNull: false },
      version: { type: DataTypes.STRING(256), allowNull: false },
      user_id: ref('users'),
      name: { type: DataTypes.STRING(255), allowNull: false },
      description: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
      api_version: { type: DataTypes.STRING(16), allowNull: false, defaultValue: '1.0' },
      manifest: { type: DataTypes.JSON, allowNull: false },
      frag_shader: { type: DataTypes.TEXT, allowNull: true },
      vert_shader: { type: DataTypes.TEXT, allowNull: true },
      ...timestamps,
    },
    { transaction },
  );
  await q.addIndex('themes', ['slug', 'version'], { unique: true, transaction });
  await q.addIndex('themes', ['user_id'], { transaction });

  await q.createTable(
    'theme_assets',
    {
      id,
      theme_id: ref('themes'),
      name: { type: DataTypes.STRING(255), allowNull: false },
      content_type: { type: DataTypes.STRING(100), allowNull: false },
      size: { type: DataTypes.INTEGER, allowNull: false },
      sha256: { type: DataTypes.STRING(64), allowNull: false },
      data: { type: DataTypes.BLOB, allowNull: false },
      ...timestamps,
    },
    { transaction },
  );
  await q.addIndex('theme_assets', ['theme_id', 'name'], { unique: true, transaction });

  await q.createTable(
    'dice_box_items',
    {
      id,
      user_id: ref('users'),
      theme_slug: { type: DataTypes.STRING(100), allowNull: false },
      theme_id: ref('themes'),
      ...timestamps,
    },
    { transaction },
  );
  await q.addIndex('dice_box_items', ['user_id', 'theme_slug'], { unique: true, transaction });
  await q.addIndex('dice_box_items', ['theme_id'], { transaction });

  await q.createTable(
    'rooms',
    {
      id,
      slug: { type: DataTypes.STRING(64), allowNull: false, unique: true },
      name: { type: DataTypes.STRING(255), allowNull: false },
      is_public: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
      passcode: { type: DataTypes.STRING(64), allowNull: true },
      bg_file_path: { type: DataTypes.STRING(512), allowNull: true },
      user_id: ref('users'),
      ...timestamps,
      deleted_at: { type: DataTypes.DATE, allowNull: true },
    },
    { transaction },
  );
  await q.addIndex('rooms', ['user_id'], { transaction });

  await q.createTable(
    'room_backgrounds',
    {
      id,
      room_id: { ...ref('rooms'), unique: true },
      content_type: { type: DataTypes.STRING(100), allowNull: false },
      size: { type: DataTypes.INTEGER, allowNull: false },
      sha256: { type: DataTypes.STRING(64), allowNull: false },
      data: { type: DataTypes.BLOB, allowNull: false },
      ...timestamps,
    },
    { transaction },
  );

  await q.createTable(
    'participants',
    {
      id,
      room_id: ref('rooms'),
      user_id: ref('users'),
      username: { type: DataTypes.STRING(64), allowNull: false },
      color: { type: DataTypes.STRING(7), allowNull: false },
      position: { type: DataTypes.INTEGER, allowNull: false },
      ...timestamps,
    },
    { transaction },
  );
  await q.addIndex('participants', ['room_id', 'user_id'], { unique: true, transaction });
  await q.addIndex('participants', ['room_id', 'position'], { unique: true, transaction });
  await q.addIndex('participants', ['user_id'], { transaction });

  await q.createTable(
    'rolls',
    {
      id,
      uuid: { type: DataTypes.UUID, allowNull: false, unique: true },
      user_id: ref('users'),
      room_id: ref('rooms', 'SET NULL', true),
      direction: { type: DataTypes.DOUBLE, allowNull: false },
      velocity: { type: DataTypes.DOUBLE, allowNull: false },
      equation: { type: DataTypes.STRING(1024), allowNull: false },
      total_value: { type: DataTypes.DOUBLE, allowNull: false },
      operator: { type: DataTypes.JSON, allowNull: true },
      label: { type: DataTypes.STRING(255), allowNull: true },
      external_id: { type: DataTypes.STRING(255), allowNull: true },
      is_whispered: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      ...timestamps,
    },
    { transaction },
  );
  await q.addIndex('rolls', ['user_id', 'external_id'], { unique: true, transaction });
  await q.addIndex('rolls', ['room_id', 'id'], { transaction });

  await q.createTable(
    'roll_values',
    {
      id,
      uuid: { type: DataTypes.UUID, allowNull: false, unique: true },
      roll_id: ref('rolls'),
      position: { type: DataTypes.INTEGER, allowNull: false },
      die_index: { type: DataTypes.INTEGER, allowNull: false },
      type: { type: DataTypes.STRING(64), allowNull: false },
      theme: { type: DataTypes.STRING(100), allowNull: false },
      value: { type: DataTypes.INTEGER, allowNull: true },
      value_to_display: { type: DataTypes.JSON, allowNull: true },
      numeric_value: { type: DataTypes.DOUBLE, allowNull: true },
      origin: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'roll' },
      label: { type: DataTypes.STRING(255), allowNull: true },
      meta: { type: DataTypes.JSON, allowNull: true },
      is_hidden: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      is_user_value: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      is_visible: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
      is_cleared: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      is_dropped: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      ...timestamps,
    },
    { transaction },
  );
  await q.addIndex('roll_values', ['roll_id', 'position'], { transaction });

  // Who a whispered roll is for: participants of the roll's room (their users, for fast filtering).
  await q.createTable(
    'roll_whispers',
    {
      id,
      roll_id: ref('rolls'),
      participant_id: ref('participants'),
      user_id: ref('users'),
    },
    { transaction },
  );
  await q.addIndex('roll_whispers', ['roll_id', 'participant_id'], { unique: true, transaction });
  await q.addIndex('roll_whispers', ['user_id'], { transaction });

  await q.createTable(
    'share_requests',
    {
      id: { type: DataTypes.UUID, primaryKey: true, allowNull: false },
      code: { type: DataTypes.STRING(64), allowNull: false, unique: true },
      user_id: ref('users'),
      theme_slug: { type: DataTypes.STRING(100), allowNull: false },
      expires_at: { type: DataTypes.DATE, allowNull: true },
      max_uses: { type: DataTypes.INTEGER, allowNull: true },
      uses: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      ...timestamps,
    },
    { transaction },
  );
  await q.addIndex('share_requests', ['user_id'], { transaction });
}

export async function down({ context: { queryInterface: q, transaction } }: { context: MigrationContext }) {
  for (const table of [
    'share_requests',
    'roll_whispers',
    'roll_values',
    'rolls',
    'participants',
    'room_backgrounds',
    'rooms',
    'dice_box_items',
    'theme_assets',
    'themes',
    'api_keys',
    'users',
  ]) {
    await q.dropTable(table, { transaction });
  }
}
