import { loadRolls } from '../../rolls/store/load';
import type { RollRecord as Roll } from '../../rolls/store/records';
import { memberUserIds } from '../../rooms/policy';
import { presentRoll, rollViewerClass } from '../../rolls/present';
import type { Broadcaster } from '../transport/broadcaster';
import { MEMBERS_CHANNEL, roomNamespace, userChannel } from '../names';
import { preSerialize, textOf, type PreSerialized } from '../transport/preSerialized';
import { emitPerViewer, type RollFeed } from './eventsToEmits';
import { roomMembers } from '../../rooms/present';

/**
 * Rolls, live: each roll is loaded once (one batch for the event), then presented once per class of
 * the room's members who may see it (rolls/present.ts rollViewerClass), and emitted once per class to those
 * members' channels: a whispered roll reaches only its roller and its recipients, a hidden
 * die's value only its roller, on every instance.
 */
export function createRollFeed(broadcaster: Broadcaster): RollFeed {
  return {
    async emitRolls(event, rollIds, slug, loaded, onSeq) {
      const rolls = loaded?.size ? await withPreloaded(rollIds, loaded) : await loadRolls(rollIds);
      for (const roll of rolls) {
        if (roll.room?.slug !== slug) continue;
        const told = onSeq && ((seq: number) => onSeq(roll.id, seq));
        if (!roll.isWhispered) {
          emitToRoom(broadcaster, roomNamespace(slug), event, roll, told);
          continue;
        }
        const viewers = new Set([...roomMembers(roll.room), roll.userId]);
        emitPerViewer(
          broadcaster,
          roomNamespace(slug),
          event,
          viewers,
          rollViewerClass(roll),
          (viewer) => presentRoll(roll, viewer),
          { event, rollId: roll.id },
          told,
        );
      }
    },
  };
}

/**
 * A roll for the whole room: every other socket of the room gets one shared presentation through the
 * members channel (presentRoll() depends on the viewer only through rollViewerClass(), and everyone
 * else in the namespace is a participant: the handshake admits no one else); its roller and the
 * room's owner get theirs on their own channels, unless it is byte for byte the shared one (no hidden
 * die, the owner's view of the room the same as a participant's): then they take it from the members
 * channel too. One to three emits whatever the size of the room, each naming one or two channels:
 * addressing every member's channel put a thousand names into each Redis message of a room of 1,000,
 * and a roller's copy identical to the room's doubled what each roll sends through Redis.
 */
function emitToRoom(
  broadcaster: Broadcaster,
  namespace: string,
  event: 'RollCreateEvent' | 'RollUpdateEvent',
  roll: Roll,
  onSeq?: (seq: number) => void,
): void {
  const classOf = rollViewerClass(roll);
  const special = [...new Set([roll.userId, roll.room!.userId])];
  let other: number | undefined;
  for (const id of memberUserIds(roll.room!)) {
    if (!special.includes(id)) {
      other = id;
      break;
    }
  }
  // Serialised once each (the broadcaster keeps the text): comparing the texts is what decides who
  // may share, so no viewer can receive bytes meant for another class.
  const shared = other === undefined ? undefined : preSerialize({ data: presentRoll(roll, other) });
  const own: Array<{ viewer: number; payload: PreSerialized }> = [];
  // The special viewers kept out of the members' message: those with a copy of their own, and those who may not see the roll.
  const except: string[] = [];
  for (const viewer of special) {
    if (classOf(viewer) !== undefined) {
      const payload = preSerialize({ data: presentRoll(roll, viewer) });
      if (shared && textOf(payload) === textOf(shared)) continue;
      own.push({ viewer, payload });
    }
    except.push(userChannel(viewer));
  }
  broadcaster.atomically(
    () => {
      for (const { viewer, payload } of own) broadcaster.emit({ namespace, to: [userChannel(viewer)] }, event, payload);
      if (shared) broadcaster.emit({ namespace, to: [MEMBERS_CHANNEL], except }, event, shared);
    },
    { event, rollId: roll.id },
    onSeq,
  );
}

/**
 * The rolls `ids`, in order, taking those this instance's command already assembled from `loaded` and
 * reading the others. A preloaded roll keeps the room as its command read it, a moment before its
 * commit: the roll goes to the room's members as the roll saw them when it was made. (A removal that
 * commits in that moment is announced after the roll in this room's queue, so the removed member gets
 * the roll, then its kick: the same order as if the removal had come a moment later.)
 */
async function withPreloaded(ids: readonly number[], loaded: ReadonlyMap<number, Roll>): Promise<Roll[]> {
  const missing = ids.filter((id) => !loaded.has(id));
  const readById = new Map((await loadRolls(missing)).map((r) => [r.id, r]));
  return [...new Set(ids)].flatMap((id) => loaded.get(id) ?? readById.get(id) ?? []);
}
