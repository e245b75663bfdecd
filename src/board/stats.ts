/**
 * The board's "Statistics" dialog: how the room's dice fell (GET /room/{slug}/stats), one histogram per
 * die type with the count a fair die would give drawn across it, and the test's verdict in words.
 * The cards are src/pages/client/statsView.ts's, as on the room page.
 */
import { h, render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { RollStats } from '../client';
import { DieCard, UNUSUAL_BELOW } from '../pages/client/statsView';
import { slug, state } from './state';
import { $, messageOf } from './view';

/** How long the open dialog waits after a roll before it asks again (rolls arriving meanwhile wait with it). */
const REFRESH_AFTER_MS = 1500;

function StatsPanel({ close }: { close: () => void }) {
  const [user, setUser] = useState('');
  const [stats, setStats] = useState<RollStats | null>(null);
  const [error, setError] = useState('');
  const [loads, setLoads] = useState(0);
  useEffect(() => {
    let current = true;
    setError('');
    state
      .client!.getRoomStats(slug, user ? { user } : {})
      .then((s) => current && setStats(s))
      .catch((err) => current && setError(messageOf(err)));
    return () => {
      current = false;
    };
  }, [user, loads]);
  // Live: a roll made, changed (a die revealed) or cleared while the dialog is open asks again, once per
  // REFRESH_AFTER_MS however many arrive (each answer is a count over the whole room).
  useEffect(() => {
    const socket = state.socket;
    if (!socket) return;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const soon = () => {
      timer ??= setTimeout(() => {
        timer = null;
        setLoads((n) => n + 1);
      }, REFRESH_AFTER_MS);
    };
    socket.on('RollCreateEvent', soon);
    socket.on('RollUpdateEvent', soon);
    socket.on('RollDeleteEvent', soon);
    return () => {
      socket.off('RollCreateEvent', soon);
      socket.off('RollUpdateEvent', soon);
      socket.off('RollDeleteEvent', soon);
      if (timer) clearTimeout(timer);
    };
  }, []);
  const players = [...(state.room?.participants ?? [])].sort((a, b) => a.position - b.position);
  return h('div', { class: 'stats-panel' }, [
    h('header', null, [h('h2', { id: 'stats-title' }, 'Statistics'), h('button', { type: 'button', class: 'secondary', onClick: close }, 'Close')]),
    h('div', { class: 'stats-controls' }, [
      h('label', null, [
        'Whose rolls ',
        h('select', { id: 'stats-user', value: user, onChange: (e: Event) => setUser((e.target as HTMLSelectElement).value) }, [
          h('option', { value: '' }, 'Everyone'),
          ...players.map((p) => h('option', { key: p.id, value: p.user.uuid }, p.username)),
        ]),
      ]),
      h('button', { type: 'button', class: 'secondary', onClick: () => setLoads((n) => n + 1) }, 'Refresh'),
    ]),
    h(
      'p',
      { class: 'stats-note' },
      `Each die is tested against a fair one (every face equally likely). "Unusual" means a fair die would fall this unevenly less than ${UNUSUAL_BELOW * 100}% of the time; the dashed line is what a fair die would give. ` +
        'Dropped and rerolled dice count; dice you may not see (hidden, whispered to others) and values sent by a client do not.',
    ),
    error ? h('p', { class: 'error', role: 'alert' }, error) : null,
    stats === null && !error ? h('p', { role: 'status' }, 'Loading…') : null,
    stats
      ? h('p', { class: 'facts', role: 'status' }, stats.dice.length ? `${stats.rolls} ${stats.rolls === 1 ? 'roll' : 'rolls'}` : 'No dice thrown yet.')
      : null,
    ...(stats?.dice ?? []).map((die) => h(DieCard, { key: `${die.type}|${die.faces}|${die.themes.join(',')}`, die })),
  ]);
}

/** Wires the history's "Statistics" button to the dialog (a modal <dialog>: focus stays inside, Escape closes it). */
export function wireStats() {
  const dialog = $('stats-dialog') as HTMLDialogElement;
  const close = () => dialog.close();
  dialog.addEventListener('close', () => render(null, dialog));
  $('stats-open').addEventListener('click', () => {
    if (!state.client) return;
    render(h(StatsPanel, { close }), dialog);
    dialog.showModal();
  });
}
