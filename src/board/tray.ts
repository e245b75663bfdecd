/**
 * The signed-in player's dice tray (their participant's `dice_tray`: saved rows of dice): one button per
 * row, which rolls that row's dice in their themes with one click.
 */
import type { TrayDie } from '../client';
import { upsertRoll } from './rollList';
import { slug, state } from './state';
import { $, el, messageOf, onEvent } from './view';

/** `2d6 + d8`: a row's dice counted by die and theme, in the order they first appear. */
export function rowLabel(row: readonly TrayDie[]): string {
  const counts = new Map<string, number>();
  for (const die of row) counts.set(die.dieType, (counts.get(die.dieType) ?? 0) + 1);
  return [...counts].map(([type, n]) => `${n > 1 ? n : ''}${type}`).join(' + ');
}

function myTray(): TrayDie[][] {
  const me = state.me?.uuid;
  const seat = state.room?.participants.find((p) => p.user.uuid === me);
  return Array.isArray(seat?.dice_tray) ? seat.dice_tray : [];
}

/** Shows the tray's rows (hidden when it has none); called whenever the room changes. */
export function renderTray() {
  const rows = myTray();
  const section = $('tray');
  section.hidden = rows.length === 0;
  $('tray-rows').replaceChildren(
    ...rows.map((row, i) => {
      const themes = [...new Set(row.map((d) => d.theme))].join(', ');
      return el('button', { text: rowLabel(row), attrs: { type: 'button', 'data-tray-row': String(i), title: `Roll ${rowLabel(row)} (${themes})` } });
    }),
  );
}

export function wireTray() {
  $('tray-rows').addEventListener(
    'click',
    onEvent(async (event) => {
      const button = (event.target as HTMLElement).closest('button');
      const row = myTray()[Number(button?.dataset.trayRow)];
      if (!button || !row?.length) return;
      const error = $('roll-error');
      error.textContent = '';
      (button as HTMLButtonElement).disabled = true;
      try {
        const roll = await state.client!.createRoll({ dice: row.map((d) => ({ type: d.dieType, theme: d.theme })), room: slug });
        // The socket brings it too; whichever comes first is shown, the other only updates it.
        upsertRoll(roll, true);
      } catch (err) {
        error.textContent = messageOf(err);
      } finally {
        (button as HTMLButtonElement).disabled = false;
      }
    }),
  );
}
