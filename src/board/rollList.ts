/** The list of rolls beside the table, the last-roll cards, and throwing each roll on the table once. */
import type { Roll, RollValue } from '../client';
import { slug, state } from './state';
import { ledgerRoots, verifyRoll, type Verdict } from './verify';
import { $, diceViews, el, renderLastRollCard, renderRoll } from './view';

const MAX_LISTED_ROLLS = 100;
const LAST_ROLL_CARDS = 3;

export function upsertRoll(roll: Roll, animate: boolean) {
  state.rolls.set(roll.uuid, roll);
  const list = $('rolls');
  const item = withVerdict(withOutcomes(renderRoll(roll, state.room), roll), roll);
  const existing = list.querySelector(`li[data-roll-uuid="${CSS.escape(roll.uuid)}"]`);
  if (existing) existing.replaceWith(item);
  else {
    // Newest first, by creation: a roll read late (a history read again) goes below newer ones.
    const older = Array.from(list.children).find((li) => (state.rolls.get((li as HTMLElement).dataset.rollUuid ?? '')?.created_at ?? '') < roll.created_at);
    list.insertBefore(item, older ?? null);
  }
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
  $('rolls')
    .querySelector(`li[data-roll-uuid="${CSS.escape(uuid)}"]`)
    ?.remove();
  state.table?.removeRoll(uuid);
  renderLastRolls();
}

/** Colours and names follow the room: redraw the list when participants change. */
export function rerenderRolls() {
  for (const roll of state.rolls.values()) {
    $('rolls')
      .querySelector(`li[data-roll-uuid="${CSS.escape(roll.uuid)}"]`)
      ?.replaceWith(withVerdict(withOutcomes(renderRoll(roll, state.room), roll), roll));
  }
  renderLastRolls();
}

function renderLastRolls() {
  const latest = [...state.rolls.values()].sort((a, b) => b.created_at.localeCompare(a.created_at)).slice(0, LAST_ROLL_CARDS);
  $('last-roll').replaceChildren(...latest.map((r) => renderLastRollCard(r, state.room)));
}

const FUDGE_TYPE = /^df(\.\d)?$/;

/** A fudge die's face as FATE players read it: -, blank, +. */
export function fudgeText(value: RollValue): string | null {
  if (!FUDGE_TYPE.test(value.type) || value.value_to_display === null || typeof value.value_to_display === 'object') return null;
  const n = Number(value.value_to_display);
  return n < 0 ? '-' : n > 0 ? '+' : '';
}

const OUTCOMES = ['success', 'failure', 'compounded', 'penetrated'] as const;

/**
 * What the dice engine said of a roll's dice, on its list item: a pool's successes and failures (in the
 * head and on each die), compounding and penetrating throws, fudge faces as -, blank, +, and the parts
 * of a roll group set apart.
 */
export function withOutcomes(item: HTMLLIElement, roll: Roll): HTMLLIElement {
  for (const v of roll.values) {
    const die = item.querySelector<HTMLElement>(`[data-value-uuid="${CSS.escape(v.uuid)}"]`);
    if (!die) continue;
    const fudge = fudgeText(v);
    if (fudge !== null) (die.querySelector('.v') as HTMLElement).textContent = fudge;
    // A roll group's parts (`{4d6+2d8, 3d20+3}kh1`): each part's dice together, a gap before the next part.
    if (typeof v.group_part === 'number') {
      die.dataset.groupPart = `${v.group ?? 0}.${v.group_part}`;
      const prev = die.previousElementSibling as HTMLElement | null;
      if (prev?.dataset.groupPart !== undefined && prev.dataset.groupPart !== die.dataset.groupPart) die.classList.add('part-start');
    }
    const marks = OUTCOMES.filter((k) => v[`is_${k}`] === true);
    for (const k of marks) die.classList.add(k);
    if (marks.length > 0) die.title += `, ${marks.join(', ')}`;
  }
  sortDice(item, roll);
  if (typeof roll.success_count === 'number') {
    const s = roll.success_count;
    const f = roll.failure_count ?? 0;
    const pool = document.createElement('span');
    pool.className = 'pool';
    pool.textContent = `${s} success${s === 1 ? '' : 'es'}${f > 0 ? `, ${f} failure${f === 1 ? '' : 's'}` : ''}`;
    item.querySelector('.head')?.insertBefore(pool, item.querySelector('.head .total'));
  }
  return item;
}

/**
 * `4d6s` / `4d6sd` (operator `s`: "" or "a" ascending, "d" descending) sorts how the dice are shown:
 * by the number each shows, dice hidden from this viewer last, modifiers after the dice.
 */
function sortDice(item: HTMLLIElement, roll: Roll): void {
  const order = roll.operator?.s;
  if (typeof order !== 'string') return;
  const sign = order.trim().toLowerCase() === 'd' ? -1 : 1;
  const container = item.querySelector('.dice');
  if (!container) return;
  const rank = (v: RollValue): number => {
    const n = Number(v.value_to_display);
    return v.type === 'mod' ? Infinity : v.value_to_display === null || !Number.isFinite(n) ? Number.MAX_VALUE : sign * n;
  };
  const byUuid = new Map(roll.values.map((v) => [v.uuid, v]));
  const dice = Array.from(container.children) as HTMLElement[];
  dice.sort((a, b) => {
    const d = rank(byUuid.get(a.dataset.valueUuid ?? '')!) - rank(byUuid.get(b.dataset.valueUuid ?? '')!);
    return Number.isNaN(d) ? 0 : d; // two modifiers keep their order
  });
  container.replaceChildren(...dice);
}

// --- the "verified" mark (docs/fairness.md; src/board/verify.ts) --------------------------------

/** Verdicts by roll uuid and updated_at: an update (a die revealed) is checked again. */
const verdicts = new Map<string, Promise<Verdict>>();
let roots: ((batch: number) => Promise<string | null>) | null = null;

const MARKS: Record<Verdict['state'], string> = { verified: '✓ verified', partial: '✓ verified (hidden dice not yet)', failed: '✗ not verified', none: '' };

/** Checks the roll in the browser, then marks its list item with the verdict, linking to what it means. */
function withVerdict(item: HTMLLIElement, roll: Roll): HTMLLIElement {
  if (!roll.fairness || !state.client) return item;
  roots ??= ledgerRoots(() => state.client!.getRoomLedger(slug));
  const key = `${roll.uuid}|${roll.updated_at}`;
  let verdict = verdicts.get(key);
  if (!verdict) {
    verdict = verifyRoll(roll, roots).catch(() => ({ state: 'failed', detail: 'the check could not run' }) as Verdict);
    if (verdicts.size > 500) verdicts.clear();
    verdicts.set(key, verdict);
  }
  void verdict.then((v) => {
    if (!v.state || v.state === 'none' || !item.isConnected) return;
    const mark = el('a', {
      className: `fair ${v.state}`,
      text: MARKS[v.state],
      attrs: { href: '/fairness', target: '_blank', rel: 'noopener', title: v.detail, 'data-fairness': v.state },
    });
    item.querySelector('.fair')?.remove();
    item.appendChild(mark);
  });
  return item;
}
