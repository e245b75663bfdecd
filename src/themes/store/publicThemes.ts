/**
 * The public themes store: `public_themes`, the theme ids everyone may roll with (migration 0012).
 */
import { db } from '../../db';
import type { RollableCandidate } from './themes';
import type { ThemesTransaction } from './records';

/** Every version of every public theme id (boxed: false), in one query. */
export async function publicThemeVersions(): Promise<RollableCandidate[]> {
  const rows = await db().sql.query<{ slug: string; id: unknown; version: string }>(
    'SELECT t.slug AS slug, t.id AS id, t.version AS version FROM themes t JOIN public_themes p ON p.theme_slug = t.slug',
  );
  return rows.map((r) => ({ boxed: false, id: Number(r.id), slug: r.slug, version: r.version }));
}

export async function isPublicTheme(slug: string, transaction?: ThemesTransaction): Promise<boolean> {
  const [rows] = await db().sequelize.query('SELECT 1 AS one FROM public_themes WHERE theme_slug = :slug', { replacements: { slug }, transaction });
  return (rows as unknown[]).length > 0;
}

/** Make a theme id public; false when it already was. */
export async function markPublic(slug: string, transaction: ThemesTransaction): Promise<boolean> {
  if (await isPublicTheme(slug, transaction)) return false;
  await db().sequelize.query('INSERT INTO public_themes (theme_slug, created_at) VALUES (:slug, :now)', {
    replacements: { slug, now: new Date() },
    transaction,
  });
  return true;
}

/** A theme id is no longer public; false when it was not. */
export async function unmarkPublic(slug: string, transaction: ThemesTransaction): Promise<boolean> {
  if (!(await isPublicTheme(slug, transaction))) return false;
  await db().sequelize.query('DELETE FROM public_themes WHERE theme_slug = :slug', { replacements: { slug }, transaction });
  return true;
}
