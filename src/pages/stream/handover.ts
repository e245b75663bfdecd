/**
 * How the stream address (`/room/{slug}/stream?key=...`) hands its key to the board: the page's first
 * script (moveKey.ts) takes the key out of the address bar and leaves it here, for this tab only; the
 * board (src/board/state.ts) reads it from here. Imported by both, so it has no side effects.
 */

/** The tab's copy (sessionStorage survives a reload of the overlay, not the tab). */
export const streamKeyStorage = (slug: string) => `openDice.streamKey.${slug}`;

/** The memory copy, for a browser whose storage is turned off. */
export const STREAM_KEY_GLOBAL = '__openDiceStreamKey';

/** `/room/{slug}/stream` (a trailing slash allowed): the slug, or null on any other page. */
export function streamSlug(pathname: string): string | null {
  return /^\/room\/([A-Za-z0-9_-]{1,64})\/stream\/?$/.exec(pathname)?.[1] ?? null;
}

/** The key the stream address handed over to this tab, or null (any other page, or none given). */
export function handedStreamKey(): string | null {
  const slug = streamSlug(location.pathname);
  if (!slug) return null;
  const inMemory = (window as unknown as Record<string, unknown>)[STREAM_KEY_GLOBAL];
  if (typeof inMemory === 'string' && inMemory) return inMemory;
  try {
    return sessionStorage.getItem(streamKeyStorage(slug));
  } catch {
    return null;
  }
}

/** Forget the handed key (the server refused it): a reload then asks rather than retrying it. */
export function forgetStreamKey(): void {
  const slug = streamSlug(location.pathname);
  if (!slug) return;
  delete (window as unknown as Record<string, unknown>)[STREAM_KEY_GLOBAL];
  try {
    sessionStorage.removeItem(streamKeyStorage(slug));
  } catch {
    // Storage off: the memory copy is gone already.
  }
}
