/**
 * Publishing a theme version (`POST /theme`), with `extend` (docs/api/themes.md).
 */
import { ConflictError, UnprocessableError, ValidationError, type ErrorDetail } from '../errors';
import type { UserRecord } from '../users/store';
import { UniqueViolationError } from '../db/errors';
import { authorizeThemeOwner, canExtend, ownsTheme } from './policy';
import { announce } from '../lib/invalidation';
import { checkAssets, type UploadedFile } from './manifest/assets';
import { validateModels } from './manifest/khronos';
import { isPublic } from './publicThemes';
import { assetNames } from './manifest/files';
import { crossCheck } from './manifest/crossCheck';
import { parseManifest, resolveManifest, type ManifestInput, type StoredManifest } from './manifest/manifest';
import { kindFromName, type AssetKind } from './manifest/sniff';
import { manifestOf } from './manifest/stored';
import { versionConflict } from './versions';
import { isInDiceBox, putInDiceBox } from './store/diceBox';
import { assetBytes, copyAssets, findLatestTheme, insertThemeVersion, versionRows, withThemeLocked } from './store/themes';
import type { ThemeRecord, ThemesTransaction } from './store/records';
import { assertAssetRoom, assertCanAddVersion, assertCanOwnTheme } from '../users/quotas';

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

/** The base a new version extends: 422 when missing, not usable by the user, or when it leads back to `slug`. */
async function loadBase(user: UserRecord, baseSlug: string, slug: string, transaction: ThemesTransaction): Promise<ThemeRecord> {
  const fail = (message: string): never => {
    throw new UnprocessableError(message, [{ path: 'manifest.extend', message }]);
  };
  if (baseSlug === slug) fail(`A theme cannot extend itself ("${slug}"): extend another theme, or upload every key.`);
  const base = await findLatestTheme(baseSlug, { transaction, withUser: false });
  if (!base) return fail(`There is no theme "${baseSlug}" to extend.`);
  const inDiceBox = await isInDiceBox(user.id, baseSlug, transaction);
  if (!canExtend({ owns: ownsTheme(user, base.userId), isPublic: await isPublic(baseSlug), inDiceBox })) {
    fail(`You can extend your own themes, the public themes (the built-in ones among them) and themes in your dice box; "${baseSlug}" is none of them.`);
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
async function prepare(upload: ThemeUpload): Promise<Prepared> {
  const parsed = parseManifest(upload.manifest);
  const files = checkAssets(upload.assets);
  await validateModels(files);
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
export async function createTheme(user: UserRecord, upload: ThemeUpload): Promise<ThemeRecord> {
  const { manifest: input, assets } = await prepare(upload);
  const created = await withThemeLocked(input.id, (transaction) => insertVersion(user, upload, input, assets, transaction)).catch((err: unknown) => {
    // The unique index (slug, version) is the last line behind the lock: a duplicate is a conflict, never a 500.
    if (err instanceof UniqueViolationError)
      throw new ConflictError(`Version ${input.version} of this theme already exists: publish a greater version.`, 'version_conflict');
    throw err;
  });
  // The owner's box now pins this version (and every box holds the public themes): roll paths' pins everywhere.
  await announce((await isPublic(input.id)) ? { allDiceBoxes: true } : { diceBoxes: [user.id] }, {
    type: 'dicebox.created',
    userId: user.id,
    themeId: created.id,
  });
  // Answer what was written (a later read could already find it deleted).
  return { ...created, user };
}

/** The checks that need the database and the writes, inside the transaction that holds the id's lock. */
async function insertVersion(
  user: UserRecord,
  upload: ThemeUpload,
  input: ManifestInput,
  assets: Prepared['assets'],
  transaction: ThemesTransaction,
): Promise<ThemeRecord> {
  const slug = input.id;
  const existing = await versionRows(slug, transaction);
  if (existing.length) authorizeThemeOwner(user, existing[0]!.userId, slug, 'publish');
  const conflict = versionConflict(
    input.version,
    existing.map((v) => v.version),
  );
  if (conflict) throw new ConflictError(conflict, 'version_conflict');
  if (existing.length) assertCanAddVersion(slug, existing.length);
  else await assertCanOwnTheme(user.id, transaction);

  let base: ThemeRecord | null = null;
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
  const inherited = fromBase.length ? await assetBytes(base!.id, fromBase, transaction) : 0;
  await assertAssetRoom(user.id, assets.assets.reduce((sum, a) => sum + a.size, 0) + inherited, transaction);

  const theme = await insertThemeVersion(
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
    assets.assets,
    transaction,
  );
  if (base && fromBase.length) await copyAssets(base.id, theme.id, fromBase, transaction);
  await putInDiceBox(user.id, slug, theme.id, transaction);
  return theme;
}
