/** The roll form: the dice picker, an equation, a theme, hidden or not; and the themes to choose from. */
import type { DiceClient } from '../client';
import { diceOfPlainSum, equationOf, pickerDice } from './picker';
import { upsertRoll } from './rollList';
import { slug, state } from './state';
import { $, el, messageOf, onEvent } from './view';

export function wireRollForm() {
  const picker = $('picker');
  const equation = $('equation') as HTMLInputElement;
  const select = $('theme') as HTMLSelectElement;
  const dice = () => pickerDice(state.themes.get(select.value));
  const renderPicker = () => {
    picker.replaceChildren(
      ...dice().map(({ id, notation }) => {
        const count = state.counts[id] ?? 0;
        const button = el('button', { text: notation, attrs: { type: 'button', 'data-die': id, title: `Add a ${notation} (right-click removes one)` } });
        if (count) button.appendChild(el('span', { className: 'count', text: String(count) }));
        return button;
      }),
    );
  };
  picker.addEventListener('click', (event) => {
    const die = (event.target as HTMLElement).closest('button')?.dataset.die;
    if (!die) return;
    state.counts[die] = Math.min(99, (state.counts[die] ?? 0) + 1);
    equation.value = equationOf(state.counts, dice());
    renderPicker();
  });
  picker.addEventListener('contextmenu', (event) => {
    const die = (event.target as HTMLElement).closest('button')?.dataset.die;
    if (!die) return;
    event.preventDefault();
    state.counts[die] = Math.max(0, (state.counts[die] ?? 0) - 1);
    equation.value = equationOf(state.counts, dice());
    renderPicker();
  });
  equation.addEventListener('input', () => {
    // A typed equation wins over the picker's counts.
    state.counts = {};
    renderPicker();
  });
  $('clear-picker').addEventListener('click', () => {
    state.counts = {};
    equation.value = '';
    $('roll-error').textContent = '';
    renderPicker();
  });
  // Another theme, other dice: the picker offers the chosen theme's dice and nothing else.
  select.addEventListener('change', () => {
    state.counts = {};
    equation.value = '';
    renderPicker();
  });
  state.renderPicker = renderPicker;
  renderPicker();

  $('roll-form').addEventListener(
    'submit',
    onEvent(async (event) => {
      event.preventDefault();
      const text = equation.value.trim();
      const theme = ($('theme') as HTMLSelectElement).value || 'standard';
      const hidden = ($('hidden-roll') as HTMLInputElement).checked;
      const error = $('roll-error');
      error.textContent = '';
      if (!text) {
        error.textContent = 'Pick some dice or write an equation (like 2d6+3).';
        return;
      }
      let body: Parameters<DiceClient['createRoll']>[0];
      if (hidden) {
        const hiddenDice = diceOfPlainSum(text, theme, true, dice());
        if (!hiddenDice) {
          error.textContent = 'Hidden rolls take plain sums (like 2d6+1d20+3), without operators.';
          return;
        }
        body = { dice: hiddenDice, room: slug };
      } else {
        body = { equation: text, theme, room: slug };
      }
      const button = $('roll-button') as HTMLButtonElement;
      button.disabled = true;
      // roll.loading sounds while the roll is on its way (their `value` is compared with the dice count)
      const count =
        'dice' in body
          ? body.dice!.filter((d) => d.type !== 'mod').length
          : (diceOfPlainSum(text, theme, false, dice())?.filter((d) => d.type !== 'mod').length ?? 1);
      void state.sounds?.rollLoading(theme, count);
      try {
        const roll = await state.client!.createRoll(body);
        // The socket brings it too; whichever comes first is shown, the other only updates it.
        upsertRoll(roll, true);
      } catch (err) {
        error.textContent = messageOf(err);
      } finally {
        button.disabled = false;
        state.sounds?.stopLoading();
      }
    }),
  );
}

export async function loadThemes() {
  try {
    const page = await state.client!.listThemes({ per_page: 100 });
    const select = $('theme') as HTMLSelectElement;
    const ids = page.data.map((t) => t.id);
    if (!ids.length) return;
    for (const theme of page.data) state.themes.set(theme.id, theme);
    select.replaceChildren(...page.data.map((t) => el('option', { text: t.name === t.id ? t.id : `${t.name} (${t.id})`, attrs: { value: t.id } })));
    select.value = ids.includes('standard') ? 'standard' : ids[0]!;
    state.renderPicker();
  } catch {
    // The standard theme stays selected.
  }
}
