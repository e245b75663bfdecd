/**
 * Reading themes. Visibility (docs/api/themes.md): every signed-in user can read any theme by id (its
 * versions and assets), so dice rolled in a room render for everyone; `GET /theme` lists the caller's
 * own themes, the public ones (the built-in ones among them) and those in the caller's dice box; rolling needs the theme in the dice
 * box (rollable.ts).
 */
import { timingSafeEqual } from 'node:crypto';
import { NotFoundError } from '../errors';
import type { UserRecord } from '../users/store';
import { publicSlugs } from './publicThemes';
import { latestOf, sortNewestFirst } from './versions';
import { diceBoxSlugs } from './store/diceBox';
import {
  findAssetMeta,
  findLatestTheme,
  findThemeVersion,
  loadAssetData,
  loadThemesInOrder,
  themeExists,
  versionRows,
  versionsOwnedOrNamed,
} from './store/themes';
import type { AssetMeta, ThemeRecord } from './store/records';

export interface Paged<T> {
  items: T[];
  total: number;
}

export async function getLatestTheme(slug: string): Promise<ThemeRecord> {
  const theme = await findLatestTheme(slug);
  if (!theme) throw new NotFoundError(`There is no theme "${slug}".`);
  return theme;
}

export async function getThemeVersion(slug: string, version: string): Promise<ThemeRecord> {
  const theme = await findThemeVersion(slug, version);
  if (theme) return theme;
  throw new NotFoundError((await themeExists(slug)) ? `The theme "${slug}" has no version ${version}.` : `There is no theme "${slug}".`);
}

/** Every version of a theme, newest first, one page of them. */
export async function listThemeVersions(slug: string, page: number, perPage: number): Promise<Paged<ThemeRecord>> {
  const rows = sortNewestFirst(await versionRows(slug), (r) => r.version);
  if (!rows.length) throw new NotFoundError(`There is no theme "${slug}".`);
  const slice = rows.slice((page - 1) * perPage, page * perPage);
  return { items: await loadThemesInOrder(slice.map((r) => r.id)), total: rows.length };
}

/**
 * The latest version of each theme the user sees in `GET /theme`: their own, the public ones, and those
 * in their dice box; ordered by id (slug), paged.
 */
export async function listVisibleThemes(user: Pick<UserRecord, 'id'>, page: number, perPage: number): Promise<Paged<ThemeRecord>> {
  const slugs = [...new Set([...(await publicSlugs()), ...(await diceBoxSlugs(user.id))])];
  const latest = latestPerSlug(await versionsOwnedOrNamed(user.id, slugs));
  const ordered = [...latest.values()].sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
  const slice = ordered.slice((page - 1) * perPage, page * perPage);
  return { items: await loadThemesInOrder(slice.map((r) => r.id)), total: ordered.length };
}

function latestPerSlug<T extends { slug: string; version: string }>(rows: T[]): Map<string, T> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const group = groups.get(row.slug);
    if (group) group.push(row);
    else groups.set(row.slug, [row]);
  }
  const out = new Map<string, T>();
  for (const [slug, group] of groups)
    out.set(
      slug,
      latestOf(group, (r) => r.version)!,
    );
  return out;
}

/** A version's file's metadata (404 when the version has no such file). */
export async function getAssetMeta(slug: string, version: string, name: string): Promise<AssetMeta> {
  const meta = await findAssetMeta(slug, version, name);
  if (!meta) throw new NotFoundError(`Version ${version} of the theme "${slug}" has no file "${name}".`);
  return meta;
}

/** A file's bytes (404 when it went since its metadata was read). */
export async function getAssetData(assetId: number): Promise<Buffer> {
  const data = await loadAssetData(assetId);
  if (!data) throw new NotFoundError('The asset is gone.');
  return data;
}

const SHA256 = /^[0-9a-f]{64}$/;

/**
 * A file by its keyless URL (assetUrls.ts): the version's file of that name, only when its content hash is
 * the one the URL gives. A wrong or guessed hash is the same 404 as a missing file.
 */
export async function getPublicAssetMeta(slug: string, version: string, sha256: string, name: string): Promise<AssetMeta> {
  const meta = SHA256.test(sha256) ? await findAssetMeta(slug, version, name) : null;
  // Compared in constant time: the hash is what makes the URL unguessable.
  if (!meta || !timingSafeEqual(Buffer.from(meta.sha256), Buffer.from(sha256))) throw new NotFoundError('There is no such theme file.');
  return meta;
}
