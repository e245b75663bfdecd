/**
 * What the pages for people (src/pages/diceBox/routes.ts) need to know of themes on the server, before
 * their script runs: whether a theme id names a theme at all (so an unknown id is a 404 page, not a page
 * that later says so), and what a share link offers (so a dead link is a 404 or 410 page). The pages
 * may not import this feature (.dependency-cruiser.cjs); src/app.ts hands these to them.
 */
import { presentUser } from '../users/present';
import { manifestOf } from './manifest/stored';
import { previewShareRequest } from './shareRequests/accept';
import { findLatestTheme } from './store/themes';
import { timestamp } from '../http/time';

/** A live share link, as its page shows it before anyone accepts. */
export interface ShareOffer {
  code: string;
  theme: { id: string; name: string; version: string; description: string; label: { color?: string; background_color?: string } };
  sharer: { name: string; username: string } | null;
  expiresAt: string | null;
}

export interface ThemePageFacts {
  themeExists(id: string): Promise<boolean>;
  /** The link's offer, or a 404 (no link had this code) / 410 (expired, used up, revoked, theme deleted) AppError. */
  shareOffer(code: string): Promise<ShareOffer>;
}

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

export const themePageFacts: ThemePageFacts = {
  async themeExists(id) {
    return (await findLatestTheme(id, { withUser: false })) !== null;
  },
  async shareOffer(code) {
    const { request, theme } = await previewShareRequest(code);
    const label = (manifestOf(theme).label ?? {}) as unknown as Record<string, unknown>;
    const user = request.user ? presentUser(request.user) : null;
    return {
      code: request.code,
      theme: {
        id: theme.slug,
        name: theme.name,
        version: theme.version,
        description: theme.description ?? '',
        label: { color: text(label.color), background_color: text(label.background_color) },
      },
      sharer: user ? { name: user.name, username: user.username } : null,
      expiresAt: timestamp(request.expiresAt),
    };
  },
};
