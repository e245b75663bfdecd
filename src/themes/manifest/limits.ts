/** Upload limits of theme creation (documented in docs/api/themes.md). Over a limit: 413. */
export const MAX_ASSET_BYTES = 8 * 1024 * 1024;
/** All files of one version together. */
export const MAX_THEME_BYTES = 32 * 1024 * 1024;
export const MAX_ASSETS = 64;
/** `manifest`, `frag_shader` and `vert_shader`, each. */
export const MAX_TEXT_BYTES = 256 * 1024;
