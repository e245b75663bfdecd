/**
 * Which theme a keyless preview shows (the page GET /theme/{id}/preview and its JSON): the rule is
 * canPreviewWithoutKey (policy.ts): a public theme (the built-in ones), or a theme whose live share link's code comes
 * with the request. Whoever is not allowed gets the same 404 as for a theme that does not exist.
 */
import { NotFoundError } from '../../errors';
import { isPublic } from '../publicThemes';
import { canPreviewWithoutKey } from '../policy';
import { liveRequestByCode } from '../shareRequests/accept';
import { findLatestTheme, findThemeVersion } from '../store/themes';
import type { ThemeRecord } from '../store/records';

export interface PreviewRequest {
  slug: string;
  /** a version; the latest when left out */
  version?: string;
  /** the code of a share link of this theme */
  share?: string;
}

/** The theme version to preview, without its owner (keyless answers name nobody). 404/410 as said above. */
export async function getPreviewTheme(request: PreviewRequest): Promise<ThemeRecord> {
  const hidden = () => new NotFoundError(`There is no theme "${request.slug}" to preview without a key: open its preview from a share link.`);
  // A code that does not work is a 404 or 410 about the link (share page's words), whatever theme it named.
  const link = request.share !== undefined ? await liveRequestByCode(request.share) : null;
  if (!canPreviewWithoutKey({ isPublic: await isPublic(request.slug), sharedByLink: link?.themeSlug === request.slug })) throw hidden();
  const theme =
    request.version === undefined ? await findLatestTheme(request.slug, { withUser: false }) : await findThemeVersion(request.slug, request.version);
  if (!theme) throw request.version === undefined ? hidden() : new NotFoundError(`The theme "${request.slug}" has no version ${request.version}.`);
  return { ...theme, user: null };
}

/** The page's own path, for links (the share page's). */
export function previewPagePath(slug: string, version?: string): string {
  return `/theme/${encodeURIComponent(slug)}${version === undefined ? '' : `/version/${encodeURIComponent(version)}`}/preview`;
}
