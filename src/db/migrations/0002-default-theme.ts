import type { MigrationContext } from '../migrate';

/**
 * The built-in theme (src/themes/defaultTheme.ts) and its owner, a system user without API keys.
 * The values are written out here, not imported, so that this migration stays what it was when it ran.
 * test/themes/dice.test.ts checks they agree with the manifest rules and the dice engine.
 */
const SYSTEM_USER_UUID = '00000000-0000-4000-8000-000000000001';
const THEME_ID = 'standard';

const range = (from: number, to: number, step = 1) => Array.from({ length: Math.floor((to - from) / step) + 1 }, (_, i) => from + i * step);

export const DEFAULT_MANIFEST = {
  // resolveLabel('Standard', {}) when this was written
  label: { color: '#000000', background_color: '#bf9f22' },
  available_dice: ['d4', 'd6', 'd8', 'd10', 'd10x', 'd12', 'd20', 'd2', 'd16'],
  meshes: {},
  sizes: {},
  physics: {},
  sounds: [],
  textures: [],
  uniforms: {},
  values: {
    d4: range(1, 4),
    d6: range(1, 6),
    d8: range(1, 8),
    d10: range(1, 10),
    // the percentile tens die: 00, 10, ..., 90 (00 is the face 0, as in the dice engine)
    d10x: range(0, 90, 10),
    d12: range(1, 12),
    d20: range(1, 20),
    d2: range(1, 2),
    d16: range(1, 16),
  },
  extend: null,
};

export async function up({ context: { queryInterface: q, transaction } }: { context: MigrationContext }) {
  const now = new Date();
  await q.bulkInsert('users', [{ uuid: SYSTEM_USER_UUID, username: 'system', name: 'Built-in', is_registered: true, created_at: now, updated_at: now }], {
    transaction,
  });
  const [rows] = await q.sequelize.query('SELECT id FROM users WHERE uuid = :uuid', { transaction, replacements: { uuid: SYSTEM_USER_UUID } });
  const userId = (rows as { id: number }[])[0]!.id;
  await q.bulkInsert(
    'themes',
    [
      {
        slug: THEME_ID,
        version: '1.0.0',
        user_id: userId,
        name: 'Standard',
        description: 'The built-in dice: d2, d4, d6, d8, d10, d10x (tens), d12, d16 and d20 with plain numbers. Every user can roll with it.',
        api_version: '1.0',
        // a string: JSON on PostgreSQL parses it, TEXT on SQLite keeps it (the model parses it on read)
        manifest: JSON.stringify(DEFAULT_MANIFEST),
        frag_shader: null,
        vert_shader: null,
        created_at: now,
        updated_at: now,
      },
    ],
    { transaction },
  );
}

export async function down({ context: { queryInterface: q, transaction } }: { context: MigrationContext }) {
  await q.bulkDelete('themes', { slug: THEME_ID }, { transaction });
  await q.bulkDelete('users', { uuid: SYSTEM_USER_UUID }, { transaction });
}
