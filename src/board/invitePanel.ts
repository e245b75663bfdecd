/**
 * The board's "Invite players" panel: the room's invite link (its address with the passcode of a
 * private room: src/pages/client/invite.ts) with a Copy button and the passcode itself (the board's
 * header links the room's settings page, /room/{slug}/settings). Shown to the room's players, who may see the passcode
 * (the API answers it to the owner and, in a private room, to its participants); refreshed on every
 * RoomUpdateEvent, so a changed passcode changes the link.
 */
import type { Room } from '../client';
import { inviteLink } from '../pages/client/invite';
import { overlay } from './state';
import { $, onEvent } from './view';

/** Set by the home page's Create a room for the room it made: its invite is offered first. */
const CREATED = 'openDice.created';

export function renderInvite(room: Room): void {
  const panel = $('invite');
  if (overlay) return void (panel.hidden = true);
  const privateWithout = !room.is_public && !room.passcode;
  panel.hidden = privateWithout;
  if (privateWithout) return;
  const link = inviteLink(location.origin, room.slug, room.is_public ? null : room.passcode);
  ($('invite-link') as HTMLInputElement).value = link;
  $('invite-passcode').hidden = room.is_public;
  $('invite-passcode-value').textContent = room.is_public ? '' : (room.passcode ?? '');
  $('invite-note').textContent = room.is_public
    ? 'A public room: anyone with this link can join.'
    : 'Whoever opens this link joins the room: send it to your players only.';
}

async function copy(text: string, input: HTMLInputElement): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard permission (an insecure origin, an old browser): select it for Ctrl+C.
    input.focus();
    input.select();
    return document.execCommand?.('copy') ?? false;
  }
}

export function wireInvite(slug: string): void {
  const input = $('invite-link') as HTMLInputElement;
  input.addEventListener('focus', () => input.select());
  $('copy-invite').addEventListener(
    'click',
    onEvent(async () => {
      const done = await copy(input.value, input);
      $('copy-status').textContent = done ? 'Invite link copied: paste it to your players.' : 'Select the link and copy it (Ctrl+C).';
    }),
  );
  let created = false;
  try {
    created = sessionStorage.getItem(CREATED) === slug;
    if (created) sessionStorage.removeItem(CREATED);
  } catch {
    // No storage: the panel is there all the same.
  }
  if (created) {
    $('invite').classList.add('fresh');
    $('invite-title').textContent = 'Your room is ready: invite your players';
  }
}

/** Once the room is shown: a room just made offers its invite first (the Copy button has the focus). */
export function focusInviteIfNew(): void {
  if ($('invite').classList.contains('fresh') && !$('invite').hidden) ($('copy-invite') as HTMLButtonElement).focus();
}
