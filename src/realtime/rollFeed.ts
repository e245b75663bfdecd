import type { Socket } from 'socket.io';
import { loadRolls, rollIdInRoom, visibleRollIdsInRoom } from '../commands/rollsLoad';
import { canSeeRoll } from '../policies/rolls';
import { presentRoll } from '../presenters/roll';
import type { Broadcaster } from './broadcaster';
import { RoomEvents, roomNamespace } from './events';
import { emitPerViewer, type RollFeed } from './fanout';
import { socketData } from './handshake';

/**
 * Rolls, live: each roll is loaded once (one batch for the event), then presented for each viewer
 * present in the room who may see it (policies/rolls.ts), and emitted once per distinct presentation
 * to those viewers' channels: a whispered roll reaches only its roller and its recipients, a hidden
 * die's value only its roller, on every instance.
 */
export function createRollFeed(broadcaster: Broadcaster): RollFeed {
  return {
    async emitRolls(event, rollIds, slug, viewers) {
      const rolls = await loadRolls(rollIds);
      for (const roll of rolls) {
        if (roll.room?.slug !== slug) continue;
        emitPerViewer(broadcaster, roomNamespace(slug), event, viewers, (viewer) => (canSeeRoll(roll, viewer) ? presentRoll(roll, viewer) : undefined));
      }
    },
  };
}

/** At most this many rolls are replayed to a reconnecting socket: the latest ones, oldest first. */
export const REPLAY_LIMIT = 500;

/**
 * A reconnecting socket said the last roll it saw (auth.since): send it, as RollCreateEvent and
 * in order, every roll of the room after that one that its user may see, as they are now. An
 * unknown `since` (not a roll of this room) replays nothing: the client should reload the history.
 */
export async function replayMissedRolls(socket: Socket): Promise<void> {
  const { since, room, user } = socketData(socket);
  if (!since || !room) return;
  const sinceId = await rollIdInRoom(since, room.id);
  if (sinceId === null) return;
  const newestFirst = await visibleRollIdsInRoom(room.id, user.id, null, REPLAY_LIMIT);
  const missed = newestFirst.filter((id) => id > sinceId).slice(0, REPLAY_LIMIT).reverse();
  if (!missed.length) return;
  const rolls = await loadRolls(missed);
  for (const roll of rolls) {
    if (!socket.connected) return;
    if (canSeeRoll(roll, user.id)) socket.emit(RoomEvents.RollCreate, { data: presentRoll(roll, user.id) });
  }
}
