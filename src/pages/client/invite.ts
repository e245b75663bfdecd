/**
 * Invite links (browser module): `ORIGIN/room/{slug}` with `?passcode=` for a private room, dddice's
 * own room address. Whoever opens one with the passcode joins at once (src/board/main.ts; docs/pages.md,
 * "Invite links"). The passcode is URL-safe by construction (src/rooms/codes.ts) and encoded anyway.
 */

const SLUG = /^[A-Za-z0-9_-]{1,64}$/;

export function inviteLink(origin: string, slug: string, passcode: string | null): string {
  return `${origin}/room/${encodeURIComponent(slug)}${passcode ? `?passcode=${encodeURIComponent(passcode)}` : ''}`;
}

export interface Invite {
  slug: string;
  passcode: string | null;
}

/**
 * What a person pasted: an invite link (or any room or board address of a server, with its passcode
 * in the query or, as overlays carry it, in the fragment), or a bare slug. Null when it is neither.
 */
export function parseInvite(text: string): Invite | null {
  const trimmed = text.trim();
  if (SLUG.test(trimmed)) return { slug: trimmed, passcode: null };
  let url: URL;
  try {
    url = new URL(trimmed, location.origin);
  } catch {
    return null;
  }
  const path = /^\/(?:room|board)\/([^/]+)\/?$/.exec(url.pathname);
  const slug = path ? decodeURIComponent(path[1]!) : '';
  if (!SLUG.test(slug)) return null;
  const passcode = url.searchParams.get('passcode') ?? new URLSearchParams(url.hash.slice(1)).get('passcode');
  return { slug, passcode: passcode ? passcode.slice(0, 64) : null };
}

const INTENT = 'openDice.joinIntent';

/**
 * This site's own pages saying "the person here asked for this room" (the home page's Join a room and
 * Create a room) before they open its board: sessionStorage is this origin's alone, so no other site
 * can say it. The board joins at once for it, as for an invite.
 */
export function markJoinIntent(slug: string): void {
  try {
    sessionStorage.setItem(INTENT, slug);
  } catch {
    // No storage: the board asks before joining instead.
  }
}

/** Whether this page was opened by this site for `slug` (read once). */
export function takeJoinIntent(slug: string): boolean {
  try {
    const intended = sessionStorage.getItem(INTENT);
    sessionStorage.removeItem(INTENT);
    return intended === slug;
  } catch {
    return false;
  }
}
