/** Upload limits of theme creation (documented in docs/api/themes.md). Over a limit: 413. */
export const MAX_ASSET_BYTES = 8 * 1024 * 1024;
/** All files of one version together. */
export const MAX_THEME_BYTES = 32 * 1024 * 1024;
export const MAX_ASSETS = 64;
/** `manifest`, `frag_shader` and `vert_shader`, each. */
export const MAX_TEXT_BYTES = 256 * 1024;
/**
 * A face given as an object (`{"src": "d20-1.png"}`), as JSON: every value rolled with the die carries
 * its face, to every member of the room, so a face is a file name and a few keys, not a payload.
 */
export const MAX_FACE_JSON_BYTES = 1024;
