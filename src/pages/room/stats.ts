/**
 * The room page's statistics: how the room's dice fell, as the board's Statistics dialog shows it (the
 * same die cards: src/pages/client/statsView.ts). Asked for on a click rather than with the page: each
 * answer is a count over the whole room (GET /room/{slug}/stats), and the page reads the room again
 * every 15 s.
 */
import { h } from 'preact';
import { useState } from 'preact/hooks';
import type { RollStats } from '../../client/types';
import { DieCard, UNUSUAL_BELOW } from '../client/statsView';
import type { RoomProps } from './people';
import { messageOf } from './ui';

export function RoomStatistics(props: RoomProps) {
  const [stats, setStats] = useState<RollStats | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const load = async () => {
    setBusy(true);
    setError('');
    try {
      setStats(await props.client.getRoomStats(props.room.slug));
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };
  return h('section', { class: 'card stats', 'aria-labelledby': 'stats-title' }, [
    h('h2', { id: 'stats-title' }, 'Statistics'),
    h(
      'p',
      { class: 'facts' },
      `Each die is tested against a fair one (every face equally likely). "Unusual" means a fair die would fall this unevenly less than ${UNUSUAL_BELOW * 100}% of the time; the dashed line is what a fair die would give. Dice you may not see and values sent by a client are not counted.`,
    ),
    h(
      'div',
      null,
      h(
        'button',
        { type: 'button', class: stats ? 'secondary' : '', disabled: busy, onClick: () => void load() },
        stats ? 'Refresh statistics' : 'Show statistics',
      ),
    ),
    error ? h('p', { class: 'message error', role: 'alert' }, error) : null,
    stats
      ? h('p', { class: 'facts', role: 'status' }, stats.dice.length ? `${stats.rolls} ${stats.rolls === 1 ? 'roll' : 'rolls'}` : 'No dice thrown yet.')
      : null,
    ...(stats?.dice ?? []).map((die) => h(DieCard, { key: `${die.type}|${die.faces}|${die.themes.join(',')}`, die })),
  ]);
}
