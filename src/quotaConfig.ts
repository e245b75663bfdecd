/**
 * The per-user quota variables (docs/api.md, "Quotas"): their rules, defaults and parsed shape. config.ts
 * validates them with the rest of the environment (one sentence per bad variable); users/quotas.ts
 * enforces them.
 */
import Joi from 'joi';

/** Per-user quotas: each bounds what one key can make the service store, whatever its request rate. */
export interface Quotas {
  /** Live rooms the user owns (ROOMS_PER_USER). */
  roomsOwned: number;
  /** Live rooms of others the user is a participant of (ROOMS_JOINED_PER_USER). */
  roomsJoined: number;
  /** Theme ids the user owns (THEMES_PER_USER). */
  themesOwned: number;
  /** Versions of one theme id (VERSIONS_PER_THEME). */
  versionsPerTheme: number;
  /** Bytes of theme files and room backgrounds the user's themes and live rooms store (ASSET_BYTES_PER_USER). */
  assetBytes: number;
  /** Share requests not revoked, whatever their state (SHARE_REQUESTS_PER_USER). */
  shareRequests: number;
}

/** Far above what a person uses (never reached in play), small enough that one key cannot flood the database. */
export const DEFAULT_QUOTAS: Readonly<Quotas> = Object.freeze({
  roomsOwned: 100,
  roomsJoined: 500,
  themesOwned: 100,
  versionsPerTheme: 100,
  assetBytes: 256 * 1024 ** 2,
  shareRequests: 100,
});

const BYTE_UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** A size: a number of bytes, or a number followed by kb, mb or gb ("256mb"); parsed to bytes. */
const byteSize = Joi.string()
  .trim()
  .custom((value: string, helpers) => {
    const match = /^(\d{1,16})\s*(b|kb|mb|gb)?$/i.exec(value);
    const bytes = match ? Number(match[1]) * BYTE_UNITS[(match[2] ?? 'b').toLowerCase()]! : NaN;
    if (!Number.isSafeInteger(bytes) || bytes < 1)
      return helpers.message({ custom: 'must be a positive number of bytes, or a number followed by kb, mb or gb, such as 256mb' });
    return bytes;
  });

const count = (fallback: number) => Joi.number().integer().min(1).max(1_000_000).default(fallback);

/** The variables' joi rules, spread into config.ts's schema. */
export const QUOTA_VARIABLES = {
  ROOMS_PER_USER: count(DEFAULT_QUOTAS.roomsOwned),
  ROOMS_JOINED_PER_USER: count(DEFAULT_QUOTAS.roomsJoined),
  THEMES_PER_USER: count(DEFAULT_QUOTAS.themesOwned),
  VERSIONS_PER_THEME: count(DEFAULT_QUOTAS.versionsPerTheme),
  ASSET_BYTES_PER_USER: byteSize.default(DEFAULT_QUOTAS.assetBytes),
  SHARE_REQUESTS_PER_USER: count(DEFAULT_QUOTAS.shareRequests),
};

/** The quotas from the validated environment. */
export function quotasFrom(value: Record<string, number>): Readonly<Quotas> {
  return Object.freeze({
    roomsOwned: value.ROOMS_PER_USER!,
    roomsJoined: value.ROOMS_JOINED_PER_USER!,
    themesOwned: value.THEMES_PER_USER!,
    versionsPerTheme: value.VERSIONS_PER_THEME!,
    assetBytes: value.ASSET_BYTES_PER_USER!,
    shareRequests: value.SHARE_REQUESTS_PER_USER!,
  });
}
