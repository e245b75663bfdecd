import type { Theme } from '../../db/models';
import type { StoredManifest } from './manifest';

/** A version's stored manifest as an object, whichever way the driver handed the JSON column over. */
export function manifestOf(theme: Pick<Theme, 'manifest'>): StoredManifest {
  const m = theme.manifest as unknown;
  return (typeof m === 'string' ? JSON.parse(m) : m) as StoredManifest;
}
