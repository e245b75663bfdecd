import type { ShareRequest } from '../../client/types';
import type { LoadedShareRequest } from './share';
import { ownsShareRequest, shareRequestState } from './policy';
import { manifestOf } from '../manifest/stored';
import { timestamp, ts } from '../../http/time';
import { presentUser } from '../../users/present';

/** The link people open: `{PUBLIC_URL or the request's origin}/share/{code}`. */
export function shareUrl(baseUrl: string, code: string): string {
  return `${baseUrl}/share/${encodeURIComponent(code)}`;
}

/**
 * A share request. Its owner sees everything; anyone else (previewing a link) sees what the link offers:
 * no id, no usage figures.
 */
export function presentShareRequest({ request, theme }: LoadedShareRequest, viewer: { id: number }, baseUrl: string, now = new Date()): ShareRequest {
  const common = {
    code: request.code,
    url: shareUrl(baseUrl, request.code),
    theme: theme ? { id: theme.slug, name: theme.name, version: theme.version, label: manifestOf(theme).label } : null,
    user: request.user ? presentUser(request.user) : null,
    expires_at: timestamp(request.expiresAt),
    status: shareRequestState(request, now),
  };
  if (!ownsShareRequest(viewer, request)) return common;
  return {
    id: request.id,
    ...common,
    max_uses: request.maxUses ?? null,
    uses: request.uses,
    created_at: ts(request.createdAt),
    updated_at: ts(request.updatedAt),
  };
}
