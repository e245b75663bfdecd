/**
 * DOM rendering of the board. Everything from the server (usernames, labels, equations, faces) goes
 * into the page as text nodes or attributes set through the DOM API, never as HTML.
 */
import { ApiError, type Participant, type Roll, type RollValue, type Room } from '../client';
import type { DieView } from './dice/table';

export function $(id: string): HTMLElement {
  const found = document.getElementById(id);
  if (!found) throw new Error(`The board page has no #${id}`);
  return found;
}

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: { className?: string; text?: string; attrs?: Record<string, string> } = {},
  children: Node[] = [],
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (props.className) node.className = props.className;
  if (props.text !== undefined) node.textContent = props.text;
  for (const [k, v] of Object.entries(props.attrs ?? {})) node.setAttribute(k, v);
  for (const child of children) node.appendChild(child);
  return node;
}

/** Colours reach CSS only when they are plain `#rrggbb` (they come from other users). */
export function safeColor(color: unknown): string {
  return typeof color === 'string' && /^#[0-9a-fA-F]{6}$/.test(color) ? color : '#8a8f99';
}

/** What a die shows: its face, `?` when hidden from this viewer, a signed number for a modifier. */
export function faceText(value: RollValue): string {
  const face = value.value_to_display;
  if (value.type === 'mod') {
    const n = Number(value.value ?? face);
    return Number.isFinite(n) ? (n < 0 ? String(n) : `+${n}`) : '?';
  }
  if (face === null || face === undefined) return value.value === null || value.value === undefined ? '?' : String(value.value);
  if (typeof face === 'object') return value.value === null || value.value === undefined ? '★' : String(value.value);
  return String(face);
}

/** Whose colour and name a roll shows: the roller's seat in this room, else the user itself. */
export function rollerOf(roll: Roll, room: Room | null): { name: string; color: string } {
  const seat = room?.participants.find((p) => p.user.uuid === roll.user.uuid);
  return { name: seat?.username ?? roll.user.username, color: safeColor(seat?.color) };
}

export function renderParticipants(list: HTMLElement, room: Room, online: Set<string>, meUuid: string | null) {
  const items = [...room.participants]
    .sort((a, b) => a.position - b.position)
    .map((p: Participant) => {
      const isOnline = online.has(p.user.uuid);
      const li = el(
        'li',
        { className: 'participant', attrs: { 'data-user-uuid': p.user.uuid, 'data-online': String(isOnline), title: isOnline ? 'online' : 'away' } },
        [el('span', { className: 'presence' }), el('span', { className: 'swatch' }), el('span', { className: 'name', text: p.username })],
      );
      (li.querySelector('.swatch') as HTMLElement).style.background = safeColor(p.color);
      if (p.user.uuid === meUuid) li.appendChild(el('span', { className: 'you', text: 'you' }));
      return li;
    });
  list.replaceChildren(...items);
}

export function dieClasses(value: RollValue): string {
  return ['die', value.is_hidden ? 'hidden' : '', value.is_dropped ? 'dropped' : '', value.type === 'mod' ? 'mod' : '', value.is_cleared ? 'cleared' : '']
    .filter(Boolean)
    .join(' ');
}

export function renderRoll(roll: Roll, room: Room | null): HTMLLIElement {
  const who = rollerOf(roll, room);
  const total = roll.total_value === null || roll.total_value === undefined ? '?' : String(roll.total_value);
  const li = el('li', { className: 'roll', attrs: { 'data-roll-uuid': roll.uuid, 'data-total': total, 'data-user-uuid': roll.user.uuid } }, [
    el('div', { className: 'head' }, [
      el('span', { className: 'who', text: who.name }),
      el('span', { className: 'equation', text: roll.equation }),
      el('span', { className: 'total', text: total }),
    ]),
  ]);
  li.style.setProperty('--who', who.color);
  if (typeof roll.label === 'string' && roll.label) li.appendChild(el('div', { className: 'label', text: roll.label }));
  const dice = el('div', { className: 'dice' });
  for (const v of roll.values) {
    const text = faceText(v);
    dice.appendChild(
      el(
        'span',
        {
          className: dieClasses(v),
          attrs: {
            'data-value-uuid': v.uuid,
            'data-face': v.value_to_display === null ? '' : text,
            title: `${v.type}${v.is_hidden ? ', hidden' : ''}${v.is_dropped ? ', dropped' : ''}`,
          },
        },
        [el('span', { className: 'v', text }), el('span', { className: 't', text: v.type === 'mod' ? 'mod' : v.type })],
      ),
    );
  }
  li.appendChild(dice);
  return li;
}

export function renderLastRollCard(roll: Roll, room: Room | null): HTMLElement {
  const who = rollerOf(roll, room);
  const card = el('div', { className: 'card', attrs: { 'data-roll-uuid': roll.uuid } }, [
    el('span', { className: 'who', text: `${who.name} · ${roll.equation}` }),
    el('span', { className: 'total', text: roll.total_value === null || roll.total_value === undefined ? '?' : String(roll.total_value) }),
  ]);
  card.style.setProperty('--who', who.color);
  return card;
}

/** The 3D dice of a roll (modifiers are not dice: they show in the list and the total only). */
export function diceViews(roll: Roll, room: Room | null): DieView[] {
  const { color } = rollerOf(roll, room);
  return roll.values
    .filter((v) => v.type !== 'mod' && !v.is_cleared)
    .map((v) => ({
      uuid: v.uuid,
      dieId: v.type,
      theme: v.theme ?? 'standard',
      value: typeof v.value === 'number' ? v.value : null,
      face: typeof v.value_to_display === 'string' || typeof v.value_to_display === 'number' ? String(v.value_to_display) : null,
      color,
      dropped: v.is_dropped,
    }));
}

/**
 * An async event handler in the shape addEventListener takes (a listener's result is ignored). The
 * handlers show their own failures on the page; anything they let through goes to the console, where an
 * unhandled rejection would have gone.
 */
export function onEvent<E extends Event>(handler: (event: E) => Promise<void>): (event: E) => void {
  return (event) => {
    handler(event).catch((err: unknown) => console.error(err));
  };
}

/** A failure as the board says it: the API's own sentence, else the error's. */
export function messageOf(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  return (err as Error)?.message || 'Something went wrong.';
}
