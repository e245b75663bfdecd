/**
 * The built-in theme every user can roll with from the first start: the standard dice with plain numeric
 * faces and no assets. Seeded by migration 0002 and owned by a system user that has no API key, so no
 * one can change or delete it through the API.
 */
export const DEFAULT_THEME_ID = 'standard';
export const DEFAULT_THEME_VERSION = '1.0.0';
/** The owner of the built-in theme; a fixed uuid so every instance agrees. */
export const SYSTEM_USER_UUID = '00000000-0000-4000-8000-000000000001';
export const SYSTEM_USERNAME = 'system';
/**
 * The built-in public themes beside `standard` (migration 0012), under the ids dddice integrations
 * hard-code: rollable by everyone and in every dice box, like `standard` (publicThemes.ts).
 */
export const BUILT_IN_PUBLIC_THEME_IDS = ['dddice-bees', 'dddice-red', 'dddice-standard'] as const;
/** Every built-in theme id: what UNKNOWN_THEME may name (config.ts). */
export const BUILT_IN_THEME_IDS: readonly string[] = [DEFAULT_THEME_ID, ...BUILT_IN_PUBLIC_THEME_IDS];
