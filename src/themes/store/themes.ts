/**
 * The themes store: every read and write of `themes` and `theme_assets`. Returns plain records
 * (store/records.ts); use cases that check then write take their transaction from `withThemeLocked`.
 */
import { Op, QueryTypes } from 'sequelize';
import { db, models } from '../../db';
import { uniquely } from '../../db/errors';
import { placeholders } from '../../db/sql';
import { latestOf } from '../versions';
import { plain, type AssetMeta, type NewAsset, type ThemeRecord, type ThemesTransaction, type ThemeVersionRow } from './records';

const withUser = () => [{ model: models().User, as: 'user' }];

/** Run `fn` in a write transaction. */
export function inTransaction<T>(fn: (transaction: ThemesTransaction) => Promise<T>): Promise<T> {
  return db().transaction(fn);
}

/**
 * Take the theme id's lock for the rest of `transaction`: everything that writes one theme id or points
 * at its versions (first versions by two users, new versions, deletion, accepting a link to it,
 * upgrading a dice box entry) is serialized by it.
 */
export async function lockThemeId(slug: string, transaction: ThemesTransaction): Promise<void> {
  // SQLite: write transactions already run one at a time (db/index.ts). PostgreSQL: a transaction-scoped
  // advisory lock on the id, released at commit or rollback, so a check-then-insert is atomic.
  if (db().dialect !== 'postgres') return;
  await db().sequelize.query('SELECT pg_advisory_xact_lock(7466, hashtext(:slug))', { replacements: { slug }, transaction, type: QueryTypes.SELECT });
}

/** Run `fn` in a write transaction that holds the theme id's lock (lockThemeId). */
export function withThemeLocked<T>(slug: string, fn: (transaction: ThemesTransaction) => Promise<T>): Promise<T> {
  return db().transaction(async (transaction) => {
    await lockThemeId(slug, transaction);
    return fn(transaction);
  });
}

/** id, version and owner of every version of a theme id. */
export async function versionRows(slug: string, transaction?: ThemesTransaction): Promise<ThemeVersionRow[]> {
  const rows = await models().Theme.findAll({ where: { slug }, attributes: ['id', 'slug', 'version', 'userId'], transaction });
  return rows.map((r) => plain<ThemeVersionRow>(r)!);
}

/** The latest version of a theme id (by SemVer precedence), in full, or null. */
export async function findLatestTheme(slug: string, options: { transaction?: ThemesTransaction; withUser?: boolean } = {}): Promise<ThemeRecord | null> {
  const latest = latestOf(await versionRows(slug, options.transaction), (r) => r.version);
  if (!latest) return null;
  return plain(await models().Theme.findByPk(latest.id, { include: options.withUser === false ? [] : withUser(), transaction: options.transaction }));
}

/** One version of a theme id, with its owner, or null. */
export async function findThemeVersion(slug: string, version: string): Promise<ThemeRecord | null> {
  return plain(await models().Theme.findOne({ where: { slug, version }, include: withUser() }));
}

/** A theme version by row id, with its owner (what the fan-out presents), or null once deleted. */
export async function findThemeById(id: number): Promise<ThemeRecord | null> {
  return plain(await models().Theme.findByPk(id, { include: withUser() }));
}

export async function themeExists(slug: string): Promise<boolean> {
  return (await models().Theme.count({ where: { slug } })) > 0;
}

/** Full rows for ids, with their owners, in the order given. */
export async function loadThemesInOrder(ids: number[]): Promise<ThemeRecord[]> {
  if (!ids.length) return [];
  const rows = await models().Theme.findAll({ where: { id: ids }, include: withUser() });
  const byId = new Map(rows.map((r) => [r.id, plain<ThemeRecord>(r)!]));
  return ids.map((id) => byId.get(id)).filter((r): r is ThemeRecord => r !== undefined);
}

/** id, slug and version of every version owned by `userId` or of one of `slugs`. */
export async function versionsOwnedOrNamed(userId: number, slugs: string[]): Promise<Pick<ThemeVersionRow, 'id' | 'slug' | 'version'>[]> {
  const rows = await models().Theme.findAll({ where: { [Op.or]: [{ userId }, { slug: slugs }] }, attributes: ['id', 'slug', 'version'] });
  return rows.map((r) => plain<Pick<ThemeVersionRow, 'id' | 'slug' | 'version'>>(r)!);
}

/** The latest version of each of `slugs` (without owners), in two small queries whatever their number. */
export async function latestThemesOf(slugs: string[]): Promise<Map<string, ThemeRecord>> {
  const out = new Map<string, ThemeRecord>();
  if (!slugs.length) return out;
  const rows = await models().Theme.findAll({ where: { slug: [...new Set(slugs)] }, attributes: ['id', 'slug', 'version'] });
  const ids: number[] = [];
  for (const slug of new Set(rows.map((r) => r.slug)))
    ids.push(
      latestOf(
        rows.filter((r) => r.slug === slug),
        (r) => r.version,
      )!.id,
    );
  for (const theme of await models().Theme.findAll({ where: { id: ids } })) out.set(theme.slug, plain<ThemeRecord>(theme)!);
  return out;
}

export async function findAssetMeta(slug: string, version: string, name: string): Promise<AssetMeta | null> {
  return plain(
    await models().ThemeAsset.findOne({
      where: { name },
      attributes: ['id', 'name', 'contentType', 'size', 'sha256'],
      include: [{ model: models().Theme, as: 'theme', where: { slug, version }, attributes: [], required: true }],
    }),
  );
}

/** An asset's bytes, or null when it is gone. */
export async function loadAssetData(assetId: number): Promise<Buffer | null> {
  const row = await models().ThemeAsset.findByPk(assetId, { attributes: ['id', 'data'] });
  if (!row) return null;
  return Buffer.isBuffer(row.data) ? row.data : Buffer.from(row.data);
}

/** Total size of the named files of a version. */
export async function assetBytes(themeId: number, names: string[], transaction: ThemesTransaction): Promise<number> {
  return Number(await models().ThemeAsset.sum('size', { where: { themeId, name: names }, transaction })) || 0;
}

export type NewThemeVersion = Pick<ThemeRecord, 'slug' | 'version' | 'userId' | 'name' | 'fragShader' | 'vertShader'> & {
  description?: string;
  apiVersion?: string;
  manifest: Record<string, unknown>;
};

/**
 * Write a version and its uploaded files. A duplicate (slug, version) is a UniqueViolationError: the
 * unique index is the last line behind the id's lock.
 */
export async function insertThemeVersion(values: NewThemeVersion, assets: NewAsset[], transaction: ThemesTransaction): Promise<ThemeRecord> {
  const theme = await uniquely(models().Theme.create(values, { transaction }));
  // One INSERT per file: single inserts bind the bytes as parameters, where a bulk insert would inline
  // each file as a hex literal in the SQL text (several times its size in memory).
  for (const a of assets) {
    await models().ThemeAsset.create(
      { themeId: theme.id, name: a.name, contentType: a.contentType, size: a.size, sha256: a.sha256, data: a.data },
      { transaction },
    );
  }
  return plain<ThemeRecord>(theme)!;
}

/** Copy a base version's files into a new version inside the database, without reading them into memory. */
export async function copyAssets(fromThemeId: number, toThemeId: number, names: string[], transaction: ThemesTransaction): Promise<void> {
  const now = new Date();
  await db().sequelize.query(
    `INSERT INTO theme_assets (theme_id, name, content_type, size, sha256, data, created_at, updated_at)
     SELECT :toThemeId, name, content_type, size, sha256, data, :now, :now FROM theme_assets
     WHERE theme_id = :fromThemeId AND name IN (:names)`,
    { replacements: { toThemeId, fromThemeId, names, now }, transaction },
  );
}

/** Delete versions and their files (children first and explicitly: nothing depends on SQLite's foreign_keys pragma). */
export async function deleteThemeVersions(ids: number[], transaction: ThemesTransaction): Promise<void> {
  await models().ThemeAsset.destroy({ where: { themeId: ids }, transaction });
  await models().Theme.destroy({ where: { id: ids }, transaction });
}

/** A version a user may roll with, as the rolling rule reads it (store/themes.ts rollableCandidates). */
export interface RollableCandidate {
  /** true: the version pinned in the user's dice box; false: a version of a public theme */
  boxed: boolean;
  id: number;
  slug: string;
  version: string;
}

/** In one query, the versions pinned in `userId`'s dice box for `slugs` (all `boxed`). */
export async function rollableCandidates(userId: number, slugs: string[]): Promise<RollableCandidate[]> {
  const rows = await db().sql.query<{ slug: string; id: unknown; version: string }>(
    `SELECT d.theme_slug AS slug, t.id AS id, t.version AS version
       FROM dice_box_items d JOIN themes t ON t.id = d.theme_id
      WHERE d.user_id = $1 AND d.theme_slug IN (${placeholders(slugs.length, 2)})`,
    [userId, ...slugs],
  );
  return rows.map((r) => ({ boxed: true, id: Number(r.id), slug: r.slug, version: r.version }));
}

/** The stored manifests (as text or object, parsed by manifestOf) of versions by row id. */
export async function manifestsOf(ids: number[]): Promise<{ id: number; manifest: unknown }[]> {
  if (!ids.length) return [];
  const rows = await db().sql.query<{ id: unknown; manifest: unknown }>(
    `SELECT t.id AS id, t.manifest AS manifest FROM themes t WHERE t.id IN (${placeholders(ids.length)})`,
    ids,
  );
  return rows.map((r) => ({ id: Number(r.id), manifest: r.manifest }));
}

/** Name and content hash of every file of the versions `themeIds` (one query, the (theme_id, name) index). */
export async function assetHashesOf(themeIds: number[]): Promise<{ themeId: number; name: string; sha256: string }[]> {
  if (!themeIds.length) return [];
  const rows = await models().ThemeAsset.findAll({ where: { themeId: [...new Set(themeIds)] }, attributes: ['themeId', 'name', 'sha256'] });
  return rows.map((r) => ({ themeId: Number(r.themeId), name: r.name, sha256: r.sha256 }));
}
