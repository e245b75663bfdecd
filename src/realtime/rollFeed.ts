import type { Socket } from 'socket.io';
import type { Broadcaster } from './broadcaster';
import type { RollFeed } from './fanout';

/**
 * Roll events and the replay of missed rolls. They need the rolls' loader, presenter and policy
 * (the rolls issue); until those exist, rolls are not sent.
 */
export function createRollFeed(_broadcaster: Broadcaster): RollFeed | undefined {
  return undefined;
}

export async function replayMissedRolls(_socket: Socket): Promise<void> {}
