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
