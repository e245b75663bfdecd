/** The table's bits of interface: the message of a theme that failed, and the sound switch. */
import { DiceSounds } from './dice/sound';
import { overlay, query, state } from './state';
import { $ } from './view';

/** A theme that does not load is said once, under the table; its dice are drawn all the same. */
export function noteThemeFailure(message: string) {
  const note = $('theme-note');
  if (note.dataset.messages?.includes(message)) return;
  note.dataset.messages = `${note.dataset.messages ?? ''}\n${message}`;
  note.hidden = false;
  note.textContent = message;
}

/** Sounds: on the board once the user has clicked; in overlay mode only with `&sound=1`. */
export function wireSounds() {
  const sounds = new DiceSounds(!overlay || query.get('sound') === '1');
  state.sounds = sounds;
  const toggle = $('sound-toggle');
  const render = () => {
    toggle.textContent = sounds.muted ? 'Sound off' : 'Sound on';
    toggle.setAttribute('aria-pressed', String(!sounds.muted));
  };
  toggle.addEventListener('click', () => {
    sounds.muted = !sounds.muted;
    render();
  });
  render();
  if (!state.table) return;
  state.table.onCollision = (die, speed) => void sounds.collide(die.theme, die.dieId, speed);
  state.table.onRest = (dice) => {
    for (const { view, face } of dice) void sounds.rested(view.theme, view.dieId, face);
  };
}

/** The table is framed below the roll cards, however many there are and however large (overlay mode). */
export function keepTableBelowCards() {
  const table = state.table;
  if (!table) return;
  const cards = $('last-roll');
  const stage = $('stage');
  const update = () => {
    const last = cards.lastElementChild?.getBoundingClientRect();
    table.setTopReserve(last ? last.bottom - stage.getBoundingClientRect().top + 8 : 0);
  };
  new ResizeObserver(update).observe(cards);
  new ResizeObserver(update).observe(stage);
}
