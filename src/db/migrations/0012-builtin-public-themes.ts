import { DataTypes } from 'sequelize';
import type { MigrationContext } from '../migrate';

/**
 * Public themes: theme ids everyone may roll with, at their latest version, and that every dice box
 * holds without a row of its own (src/themes/publicThemes.ts). The built-in `standard` is one; so are
 * three more built-in themes under the ids dddice integrations hard-code (`dddice-bees`: GM's Grimoire's
 * and the dddice SDK tests' default; `dddice-red`; `dddice-standard`), with looks of this project's own:
 * plain numbered faces in colours of their own, no files. An operator makes any other theme public with
 * `npm run cli -- theme:public ID`.
 *
 * A deployment where a user already published a theme under one of these ids keeps that user's theme:
 * the built-in one is not added (and the id is not made public; the operator may still do it).
 * The values are written out here, not imported, so that this migration stays what it was when it ran.
 */
const SYSTEM_USER_UUID = '00000000-0000-4000-8000-000000000001';
const STANDARD_ID = 'standard';

const range = (from: number, to: number, step = 1) => Array.from({ length: Math.floor((to - from) / step) + 1 }, (_, i) => from + i * step);

/** A manifest of plain numbered dice (the standard theme's dice) in the colours of `label`. */
function numbered(label: { color: string; background_color: string }) {
  return {
    label,
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
      d10x: range(0, 90, 10),
      d12: range(1, 12),
      d20: range(1, 20),
      d2: range(1, 2),
      d16: range(1, 16),
    },
    extend: null,
  };
}

export const BUILT_IN_PUBLIC_THEMES = [
  {
    slug: 'dddice-bees',
    name: 'Bees',
    description: 'Built-in: honey-gold dice with dark brown numbers. Every user can roll with it.',
    manifest: numbered({ color: '#2b1a06', background_color: '#f2b01e' }),
  },
  {
    slug: 'dddice-red',
    name: 'Red',
    description: 'Built-in: crimson dice with white numbers. Every user can roll with it.',
    manifest: numbered({ color: '#ffffff', background_color: '#b3121d' }),
  },
  {
    slug: 'dddice-standard',
    name: 'Ivory',
    description: 'Built-in: ivory dice with black numbers. Every user can roll with it.',
    manifest: numbered({ color: '#111111', background_color: '#f3eedf' }),
  },
];

export async function up({ context: { queryInterface: q, transaction } }: { context: MigrationContext }) {
  await q.createTable(
    'public_themes',
    {
      theme_slug: { type: DataTypes.STRING(100), primaryKey: true, allowNull: false },
      created_at: { type: DataTypes.DATE, allowNull: false },
    },
    { transaction },
  );
  const now = new Date();
  const [users] = await q.sequelize.query('SELECT id FROM users WHERE uuid = :uuid', { transaction, replacements: { uuid: SYSTEM_USER_UUID } });
  const systemId = (users as { id: number }[])[0]?.id;
  const publicSlugs = [STANDARD_ID];
  for (const theme of BUILT_IN_PUBLIC_THEMES) {
    const [taken] = await q.sequelize.query('SELECT id FROM themes WHERE slug = :slug', { transaction, replacements: { slug: theme.slug } });
    if ((taken as unknown[]).length || systemId === undefined) continue;
    await q.bulkInsert(
      'themes',
      [
        {
          slug: theme.slug,
          version: '1.0.0',
          user_id: systemId,
          name: theme.name,
          description: theme.description,
          api_version: '1.0',
          // a string: JSON on PostgreSQL parses it, TEXT on SQLite keeps it (the model parses it on read)
          manifest: JSON.stringify(theme.manifest),
          frag_shader: null,
          vert_shader: null,
          created_at: now,
          updated_at: now,
        },
      ],
      { transaction },
    );
    publicSlugs.push(theme.slug);
  }
  await q.bulkInsert(
    'public_themes',
    publicSlugs.map((slug) => ({ theme_slug: slug, created_at: now })),
    { transaction },
  );
}

export async function down({ context: { queryInterface: q, transaction } }: { context: MigrationContext }) {
  const [users] = await q.sequelize.query('SELECT id FROM users WHERE uuid = :uuid', { transaction, replacements: { uuid: SYSTEM_USER_UUID } });
  const systemId = (users as { id: number }[])[0]?.id;
  if (systemId !== undefined) {
    for (const theme of BUILT_IN_PUBLIC_THEMES) {
      const replacements = { slug: theme.slug, systemId };
      await q.sequelize.query('DELETE FROM dice_box_items WHERE theme_id IN (SELECT id FROM themes WHERE slug = :slug AND user_id = :systemId)', {
        replacements,
        transaction,
      });
      await q.sequelize.query('DELETE FROM share_requests WHERE theme_slug = :slug', { replacements, transaction });
      await q.bulkDelete('themes', { slug: theme.slug, user_id: systemId }, { transaction });
    }
  }
  await q.dropTable('public_themes', { transaction });
}
