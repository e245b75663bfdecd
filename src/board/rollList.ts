/** The list of rolls beside the table, the last-roll cards, and throwing each roll on the table once. */
import type { Roll, RollValue } from '../client';
import { state } from './state';
import { $, diceViews, renderLastRollCard, renderRoll } from './view';

const MAX_LISTED_ROLLS = 100;
const LAST_ROLL_CARDS = 3;

export function upsertRoll(roll: Roll, animate: boolean) {
  state.rolls.set(roll.uuid, roll);
  const list = $('rolls');
  const item = withOutcomes(renderRoll(roll, state.room), roll);
  const existing = list.querySelector(`li[data-roll-uuid="${CSS.escape(roll.uuid)}"]`);
  if (existing) existing.replaceWith(item);
  else list.prepend(item);
  while (list.children.length > MAX_LISTED_ROLLS) {
    const last = list.lastElementChild as HTMLElement;
    state.rolls.delete(last.dataset.rollUuid ?? '');
    last.remove();
  }
  if (animate && !state.thrown.has(roll.uuid)) {
    state.thrown.add(roll.uuid);
    void state.table?.throwRoll(roll.uuid, diceViews(roll, state.room), roll.direction, roll.velocity);
  } else {
    state.table?.updateRoll(roll.uuid, diceViews(roll, state.room), roll.direction, roll.velocity);
  }
  renderLastRolls();
}

export function removeRoll(uuid: string) {
  state.rolls.delete(uuid);
  $('rolls').querySelector(`li[data-roll-uuid="${CSS.escape(uuid)}"]`)?.remove();
  state.table?.removeRoll(uuid);
  renderLastRolls();
}

/** Colours and names follow the room: redraw the list when participants change. */
export function rerenderRolls() {
  for (const roll of state.rolls.values()) {
    $('rolls').querySelector(`li[data-roll-uuid="${CSS.escape(roll.uuid)}"]`)?.replaceWith(renderRoll(roll, state.room));
  }
  renderLastRolls();
}

function renderLastRolls() {
  const latest = [...state.rolls.values()].sort((a, b) => b.created_at.localeCompare(a.created_at)).slice(0, LAST_ROLL_CARDS);
  $('last-roll').replaceChildren(...latest.map((r) => renderLastRollCard(r, state.room)));
}
