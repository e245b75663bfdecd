/**
 * The stream address's first script (`/room/{slug}/stream?key=dk_...&passcode=...`, as dddice's
 * integrations send it). A classic script in <head>, so it runs before the page goes on parsing and
 * before the board's module: the key and the passcode leave the address bar at once
 * (history.replaceState), so they are not shown on stream, copied with the address, or kept in the
 * browser's history; the key stays in memory and in this tab's sessionStorage (handover.ts), the
 * passcode where the board keeps a tab's passcode. Other query values (`sound=1`) stay.
 */
import { STREAM_KEY_GLOBAL, streamKeyStorage, streamSlug } from './handover';

function moveOut(): void {
  const slug = streamSlug(location.pathname);
  if (!slug || !location.search) return;
  const params = new URLSearchParams(location.search);
  const key = params.get('key');
  const passcode = params.get('passcode');
  if (key === null && passcode === null) return;
  params.delete('key');
  params.delete('passcode');
  const rest = params.toString();
  history.replaceState(history.state, '', `${location.pathname}${rest ? `?${rest}` : ''}${location.hash}`);
  if (key) (window as unknown as Record<string, unknown>)[STREAM_KEY_GLOBAL] = key;
  try {
    if (key) sessionStorage.setItem(streamKeyStorage(slug), key);
    // Where the board looks for this tab's passcode of the room (src/board/state.ts).
    if (passcode) sessionStorage.setItem(`openDice.passcode.${slug}`, passcode);
  } catch {
    // Storage off (some embedded browsers): the key lives in memory for this page view.
  }
}

moveOut();
