/**
 * Themes: publishing versions (with `extend`), reading them, deleting them, and what rolls need.
 * Visibility (docs/api/themes.md): every signed-in user can read any theme by id (its versions and
 * assets), so dice rolled in a room render for everyone; `GET /theme` lists the caller's own themes, the
 * built-in one and those in the caller's dice box; rolling needs the theme in the dice box.
 */
import { Op, QueryTypes, type Transaction } from 'sequelize';
import { db } from '../db';
import { ConflictError, NotFoundError, UnprocessableError, ValidationError, type ErrorDetail } from '../errors';
import { DiceBoxItem, ShareRequest, Theme, ThemeAsset, User } from '../db/models';
import { authorizeThemeOwner, canExtend, ownsTheme } from './policy';
import { publish } from '../events/bus';
import { checkAssets, type UploadedFile } from './manifest/assets';
import { DEFAULT_THEME_ID } from './defaultTheme';
import { assetNames } from './manifest/files';
import { crossCheck } from './manifest/crossCheck';
import { parseManifest, resolveManifest, type ManifestInput, type StoredManifest } from './manifest/manifest';
import { kindFromName, type AssetKind } from './manifest/sniff';
import { manifestOf } from './manifest/stored';
import { latestOf, sortNewestFirst, versionConflict } from './versions';
import { putInDiceBox } from './store/diceBox';
import { assertAssetRoom, assertCanAddVersion, assertCanOwnTheme } from '../commands/quotas';
import { recordRevocations } from './store/shareRequests';

export { DEFAULT_THEME_ID } from './defaultTheme';
export { resolveDieForRoll } from './rolling';

/** What a theme creation request carries, already taken apart by the route. */
export interface ThemeUpload {
  manifest?: string;
  fragShader?: string;
  vertShader?: string;
  assets: UploadedFile[];
  /** problems of the multipart form itself (unexpected fields, repeated fields) */
  problems: ErrorDetail[];
}

/** How deep a chain of `extend` is followed when looking for a cycle. */
const MAX_EXTEND_DEPTH = 32;

const withUser = [{ model: User, as: 'user' }];

/**
 * Serialize everything that writes one theme id or points at its versions (first versions by two users,
 * new versions, deletion, accepting a link to it, upgrading a dice box entry).
 */
export async function lockThemeId(slug: string, transaction: Transaction): Promise<void> {
  // SQLite: write transactions already run one at a time (db/index.ts). PostgreSQL: a transaction-scoped
  // advisory lock on the id, released at commit or rollback, so the check-then-insert below is atomic.
  if (db().dialect !== 'postgres') return;
  await db().sequelize.query('SELECT pg_advisory_xact_lock(7466, hashtext(:slug))', { replacements: { slug }, transaction, type: QueryTypes.SELECT });
}

/** id, version and owner of every version of a theme id: small rows, for ordering by SemVer in code. */
function versionRows(slug: string, transaction?: Transaction) {
  return Theme.findAll({ where: { slug }, attributes: ['id', 'slug', 'version', 'userId'], transaction });
}

/** The latest version of a theme id (by SemVer precedence), in full, or null. */
export async function findLatestTheme(slug: string, options: { transaction?: Transaction; withUser?: boolean } = {}): Promise<Theme | null> {
  const latest = latestOf(await versionRows(slug, options.transaction), (r) => r.version);
  if (!latest) return null;
  return Theme.findByPk(latest.id, { include: options.withUser === false ? [] : withUser, transaction: options.transaction });
}

export async function getLatestTheme(slug: string): Promise<Theme> {
  const theme = await findLatestTheme(slug);
  if (!theme) throw new NotFoundError(`There is no theme "${slug}".`);
  return theme;
}

export async function getThemeVersion(slug: string, version: string): Promise<Theme> {
  const theme = await Theme.findOne({ where: { slug, version }, include: withUser });
  if (theme) return theme;
  const exists = await Theme.count({ where: { slug } });
  throw new NotFoundError(exists ? `The theme "${slug}" has no version ${version}.` : `There is no theme "${slug}".`);
}

/** Full rows for ids, in the order given. */
async function loadInOrder(ids: number[]): Promise<Theme[]> {
  if (!ids.length) return [];
  const rows = await Theme.findAll({ where: { id: ids }, include: withUser });
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id)).filter((r): r is Theme => r !== undefined);
}

export interface Paged<T> {
  items: T[];
  total: number;
}

/** Every version of a theme, newest first, one page of them. */
export async function listThemeVersions(slug: string, page: number, perPage: number): Promise<Paged<Theme>> {
  const rows = sortNewestFirst(await versionRows(slug), (r) => r.version);
  if (!rows.length) throw new NotFoundError(`There is no theme "${slug}".`);
  const slice = rows.slice((page - 1) * perPage, page * perPage);
  return { items: await loadInOrder(slice.map((r) => r.id)), total: rows.length };
}

/**
 * The latest version of each theme the user sees in `GET /theme`: their own, the built-in one, and those
 * in their dice box; ordered by id (slug), paged.
 */
export async function listVisibleThemes(user: User, page: number, perPage: number): Promise<Paged<Theme>> {
  const boxed = DiceBoxItem.findAll({ where: { userId: user.id }, attributes: ['themeSlug'] });
  const slugs = [...new Set([DEFAULT_THEME_ID, ...(await boxed).map((i) => i.themeSlug)])];
  const rows = await Theme.findAll({
    where: { [Op.or]: [{ userId: user.id }, { slug: slugs }] },
    attributes: ['id', 'slug', 'version'],
  });
  const latest = latestPerSlug(rows);
  const ordered = [...latest.values()].sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
  const slice = ordered.slice((page - 1) * perPage, page * perPage);
  return { items: await loadInOrder(slice.map((r) => r.id)), total: ordered.length };
}

function latestPerSlug<T extends { slug: string; version: string }>(rows: T[]): Map<string, T> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const group = groups.get(row.slug);
    if (group) group.push(row);
    else groups.set(row.slug, [row]);
  }
  const out = new Map<string, T>();
  for (const [slug, group] of groups) out.set(slug, latestOf(group, (r) => r.version)!);
  return out;
}

/** An asset's metadata, without its bytes. */
export async function findAssetMeta(slug: string, version: string, name: string): Promise<ThemeAsset | null> {
  return ThemeAsset.findOne({
    where: { name },
    attributes: ['id', 'name', 'contentType', 'size', 'sha256'],
    include: [{ model: Theme, as: 'theme', where: { slug, version }, attributes: [], required: true }],
  });
}

export async function loadAssetData(assetId: number): Promise<Buffer> {
  const row = await ThemeAsset.findByPk(assetId, { attributes: ['id', 'data'] });
  if (!row) throw new NotFoundError('The asset is gone.');
  return Buffer.isBuffer(row.data) ? row.data : Buffer.from(row.data);
}

/** The base a new version extends: 422 when missing, not usable by the user, or when it leads back to `slug`. */
async function loadBase(user: User, baseSlug: string, slug: string, transaction: Transaction): Promise<Theme> {
  const fail = (message: string): never => {
    throw new UnprocessableError(message, [{ path: 'manifest.extend', message }]);
  };
  if (baseSlug === slug) fail(`A theme cannot extend itself ("${slug}"): extend another theme, or upload every key.`);
  const base = await findLatestTheme(baseSlug, { transaction, withUser: false });
  if (!base) return fail(`There is no theme "${baseSlug}" to extend.`);
  const inDiceBox = (await DiceBoxItem.count({ where: { userId: user.id, themeSlug: baseSlug }, transaction })) > 0;
  if (!canExtend({ owns: ownsTheme(user, base.userId), isDefault: baseSlug === DEFAULT_THEME_ID, inDiceBox })) {
    fail(`You can extend your own themes, the built-in theme and themes in your dice box; "${baseSlug}" is none of them.`);
  }
  // Follow the chain of bases (each one's latest version) looking for the theme being made.
  const seen = new Set([slug, baseSlug]);
  let next = manifestOf(base).extend;
  for (let depth = 0; next; depth++) {
    if (next === slug) fail(`Extending "${baseSlug}" would make a cycle: it is based on "${slug}" itself.`);
    if (seen.has(next)) break;
    if (depth >= MAX_EXTEND_DEPTH) fail(`The chain of themes "${baseSlug}" is based on is longer than ${MAX_EXTEND_DEPTH}.`);
    seen.add(next);
    const ancestor = await findLatestTheme(next, { transaction, withUser: false });
    next = ancestor ? manifestOf(ancestor).extend : null;
  }
  return base;
}

interface Prepared {
  manifest: ManifestInput;
  assets: ReturnType<typeof checkAssets>;
}

/** Every check that needs no database. Throws one ValidationError listing every problem it can see. */
function prepare(upload: ThemeUpload): Prepared {
  const parsed = parseManifest(upload.manifest);
  const files = checkAssets(upload.assets);
  const details = [...upload.problems, ...parsed.details, ...files.details];
  const available = availableFiles(files, null);
  const uploaded = uploadedList(files);
  if (!parsed.manifest) {
    if (parsed.partial) {
      const { input, badKeys } = parsed.partial;
      const { manifest } = resolveManifest(input, null);
      // With a base (even a misspelt one), keys left out are unknown until the base is: skip their rules.
      const extending = input.extend !== undefined || badKeys.has('extend');
      const skipDice = badKeys.has('available_dice') || (extending && input.available_dice === undefined);
      details.push(...crossCheck(manifest, { available, uploaded, inherited: [], base: null, skipDice, skipFiles: extending }));
    }
    throw new ValidationError(details);
  }
  if (!parsed.manifest.extend) {
    const { manifest } = resolveManifest(parsed.manifest, null);
    details.push(...crossCheck(manifest, { available, uploaded, inherited: [], base: null }));
  }
  if (details.length) throw new ValidationError(details);
  return { manifest: parsed.manifest, assets: files };
}

function uploadedList(files: ReturnType<typeof checkAssets>) {
  return files.assets.map((a) => ({ name: a.name, path: `assets[${a.index}]` }));
}

/** Files a version can reference: the uploads (by content), the refused uploads (already reported), the base's. */
function availableFiles(files: ReturnType<typeof checkAssets>, base: StoredManifest | null): Map<string, AssetKind | null> {
  const out = new Map<string, AssetKind | null>();
  if (base) for (const name of assetNames(base)) out.set(name, kindFromName(name));
  for (const name of files.refused) out.set(name, null);
  for (const asset of files.assets) out.set(asset.name, asset.kind);
  return out;
}

/**
 * Publish a theme version (`POST /theme`). The first version of an id makes the caller its owner; later
 * ones are the owner's only (403) and must be greater by SemVer than every existing version (409). With
 * `extend`, keys left out (and the files they reference) come from the base's latest version. The owner's
 * dice box then holds this version.
 */
export async function createTheme(user: User, upload: ThemeUpload): Promise<Theme> {
  const { manifest: input, assets } = prepare(upload);
  const created = await db().transaction((transaction) => insertVersion(user, upload, input, assets, transaction)).catch((err: unknown) => {
    // The unique index (slug, version) is the last line behind the lock: a duplicate is a conflict, never a 500.
    if ((err as Error).name === 'SequelizeUniqueConstraintError') throw new ConflictError(`Version ${input.version} of this theme already exists: publish a greater version.`, 'version_conflict');
    throw err;
  });
  publish({ type: 'dicebox.created', userId: user.id, themeId: created.id });
  // Answer what was written (a later read could already find it deleted).
  created.user = user;
  return created;
}

/** The checks that need the database and the writes, inside the transaction that holds the id's lock. */
async function insertVersion(user: User, upload: ThemeUpload, input: ManifestInput, assets: Prepared['assets'], transaction: Transaction): Promise<Theme> {
  const slug = input.id;
  await lockThemeId(slug, transaction);
  const existing = await versionRows(slug, transaction);
  if (existing.length) authorizeThemeOwner(user, existing[0]!.userId, slug, 'publish');
  const conflict = versionConflict(input.version, existing.map((v) => v.version));
  if (conflict) throw new ConflictError(conflict, 'version_conflict');
  if (existing.length) assertCanAddVersion(slug, existing.length);
  else await assertCanOwnTheme(user.id, transaction);

  let base: Theme | null = null;
  let manifest: StoredManifest;
  if (input.extend) {
    base = await loadBase(user, input.extend, slug, transaction);
    const baseManifest = manifestOf(base);
    const resolved = resolveManifest(input, baseManifest);
    const details = crossCheck(resolved.manifest, {
      available: availableFiles(assets, baseManifest),
      uploaded: uploadedList(assets),
      inherited: resolved.inherited,
      base: base.slug,
    });
    if (details.length) throw new ValidationError(details);
    manifest = resolved.manifest;
  } else {
    manifest = resolveManifest(input, null).manifest;
  }

  const uploaded = new Set(assets.assets.map((a) => a.name));
  const fromBase = base ? assetNames(manifest).filter((name) => !uploaded.has(name)) : [];
  // This version's bytes, its own copy of the base's files included, are counted before any is written.
  const inherited = fromBase.length ? Number(await ThemeAsset.sum('size', { where: { themeId: base!.id, name: fromBase }, transaction })) || 0 : 0;
  await assertAssetRoom(user.id, assets.assets.reduce((sum, a) => sum + a.size, 0) + inherited, transaction);

  const theme = await Theme.create(
    {
      slug,
      version: input.version,
      userId: user.id,
      name: input.name,
      description: input.description,
      apiVersion: input.api_version,
      manifest: manifest as unknown as Record<string, unknown>,
      fragShader: upload.fragShader ?? base?.fragShader ?? null,
      vertShader: upload.vertShader ?? base?.vertShader ?? null,
    },
    { transaction },
  );
  // One INSERT per file: single inserts bind the bytes as parameters, where a bulk insert would inline
  // each file as a hex literal in the SQL text (several times its size in memory).
  for (const a of assets.assets) {
    await ThemeAsset.create({ themeId: theme.id, name: a.name, contentType: a.contentType, size: a.size, sha256: a.sha256, data: a.data }, { transaction });
  }
  if (base && fromBase.length) await copyAssets(base.id, theme.id, fromBase, transaction);
  await putInDiceBox(user.id, slug, theme.id, transaction);
  return theme;
}

/** Copy a base version's files into a new version inside the database, without reading them into memory. */
async function copyAssets(fromThemeId: number, toThemeId: number, names: string[], transaction: Transaction): Promise<void> {
  const now = new Date();
  await db().sequelize.query(
    `INSERT INTO theme_assets (theme_id, name, content_type, size, sha256, data, created_at, updated_at)
     SELECT :toThemeId, name, content_type, size, sha256, data, :now, :now FROM theme_assets
     WHERE theme_id = :fromThemeId AND name IN (:names)`,
    { replacements: { toThemeId, fromThemeId, names, now }, transaction },
  );
}

/**
 * Delete every version of a theme (owner only). It leaves every dice box that held it, and its share
 * requests stop working; rolls keep the id they were made with.
 */
export async function deleteTheme(user: User, slug: string): Promise<void> {
  const holders = await db().transaction(async (transaction) => {
    await lockThemeId(slug, transaction);
    const versions = await versionRows(slug, transaction);
    if (!versions.length) throw new NotFoundError(`There is no theme "${slug}".`);
    authorizeThemeOwner(user, versions[0]!.userId, slug, 'delete');
    const ids = versions.map((v) => v.id);
    const items = await DiceBoxItem.findAll({ where: { themeSlug: slug }, attributes: ['userId'], transaction });
    // Children first and explicitly: the schema cascades, but nothing here depends on SQLite's foreign_keys pragma.
    const shares = await ShareRequest.findAll({ where: { themeSlug: slug }, attributes: ['id', 'code'], transaction });
    await recordRevocations(shares.map((r) => r.code), 'theme_deleted', transaction);
    await ShareRequest.destroy({ where: { themeSlug: slug }, transaction });
    await DiceBoxItem.destroy({ where: { themeSlug: slug }, transaction });
    await ThemeAsset.destroy({ where: { themeId: ids }, transaction });
    await Theme.destroy({ where: { id: ids }, transaction });
    return [...new Set(items.map((i) => i.userId))];
  });
  for (const userId of holders) publish({ type: 'dicebox.deleted', userId, themeSlug: slug });
}
