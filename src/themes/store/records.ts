/**
 * Plain records of the themes aggregate (themes, theme_assets, dice_box_items, share_requests): what
 * the themes stores return, with the same field names as the Sequelize models, never model instances.
 */
import type { Transaction } from 'sequelize';
import type { UserRecord } from '../../users/store';

/** A transaction handle, as the stores take it (opened by `inTransaction` or `withThemeLocked`). */
export type ThemesTransaction = Transaction;

/** One theme version, in full. `user` (its owner) is there when the read asked for it. */
export interface ThemeRecord {
  id: number;
  slug: string;
  version: string;
  userId: number;
  name: string;
  description: string;
  apiVersion: string;
  /** the stored manifest (a JSON column: object or text, whichever way the driver hands it over) */
  manifest: unknown;
  fragShader: string | null;
  vertShader: string | null;
  createdAt: Date;
  updatedAt: Date;
  user?: UserRecord | null;
}

/** id, version and owner of a theme version: small rows, for ordering by SemVer in code. */
export interface ThemeVersionRow {
  id: number;
  slug: string;
  version: string;
  userId: number;
}

/** An asset's metadata, without its bytes. */
export interface AssetMeta {
  id: number;
  name: string;
  contentType: string;
  size: number;
  sha256: string;
}

/** A file of a new version, as the upload checks left it. */
export interface NewAsset {
  name: string;
  contentType: string;
  size: number;
  sha256: string;
  data: Buffer;
}

/** A dice box entry as listing needs it: the theme id, its name and the version the box holds. */
export interface DiceBoxEntry {
  slug: string;
  name: string;
  themeId: number;
}

export interface ShareRequestRecord {
  id: string;
  code: string;
  userId: number;
  themeSlug: string;
  expiresAt: Date | null;
  maxUses: number | null;
  uses: number;
  createdAt: Date;
  updatedAt: Date;
  /** the sharer, when the read asked for it */
  user?: UserRecord | null;
}

/** Why a share link stopped working for good. */
export type RevocationReason = 'revoked' | 'theme_deleted';

/** A model instance (or null) as a plain record, its loaded associations plain too. */
export function plain<R>(row: { get(options: { plain: true }): unknown } | null): R | null {
  return row ? (row.get({ plain: true }) as R) : null;
}
