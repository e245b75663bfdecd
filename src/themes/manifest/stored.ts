import type { StoredManifest } from './manifest';

/** A version's stored manifest as an object, whichever way the driver handed the JSON column over. */
export function manifestOf(theme: { manifest: unknown }): StoredManifest {
  const m = theme.manifest;
  return (typeof m === 'string' ? JSON.parse(m) : m) as StoredManifest;
}
