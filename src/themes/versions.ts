/**
 * Theme versions: SemVer 2.0.0 strings, ordered by SemVer precedence (build metadata ignored, pre-releases
 * lower than their release, numeric identifiers compared as numbers).
 */
import semver from 'semver';

// The regular expression semver.org gives for SemVer 2.0.0, verbatim in meaning: no "v" prefix, no
// leading zeros in numeric identifiers, optional pre-release and build metadata.
const SEMVER_2 =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

/** Longest version string stored (the column's size; also the semver package's own limit). */
export const MAX_VERSION_LENGTH = 256;

/** Whether `value` is a SemVer 2.0.0 version this service can order (numbers within JavaScript's safe range). */
export function isSemVer(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > MAX_VERSION_LENGTH || !SEMVER_2.test(value)) return false;
  try {
    new semver.SemVer(value);
    return true;
  } catch {
    return false;
  }
}

/** Negative when a precedes b, 0 when they have the same precedence (they may differ in build metadata). */
export function compareVersions(a: string, b: string): number {
  return semver.compare(a, b);
}

/** Newest first. */
export function sortNewestFirst<T>(items: T[], version: (item: T) => string): T[] {
  return [...items].sort((x, y) => compareVersions(version(y), version(x)));
}

/** The item with the highest precedence, or null for none. */
export function latestOf<T>(items: readonly T[], version: (item: T) => string): T | null {
  let best: T | null = null;
  for (const item of items) if (best === null || compareVersions(version(item), version(best)) > 0) best = item;
  return best;
}

/**
 * Why `candidate` cannot follow `existing` versions, or null when it can: a new version must be greater by
 * precedence than every existing one (so `1.0.0+b` after `1.0.0+a` is refused: same precedence).
 */
export function versionConflict(candidate: string, existing: readonly string[]): string | null {
  const latest = latestOf(existing, (v) => v);
  if (latest === null) return null;
  const order = compareVersions(candidate, latest);
  if (order > 0) return null;
  if (existing.includes(candidate)) return `Version ${candidate} of this theme already exists: publish a greater version.`;
  if (order === 0)
    return `Version ${candidate} has the same precedence as the existing version ${latest} (build metadata does not count): publish a greater version.`;
  return `Version ${candidate} is lower than the latest version ${latest}: a new version must be greater by SemVer.`;
}
