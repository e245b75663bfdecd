import type { Socket } from 'socket.io';
import { loadRolls } from '../../rolls/store/load';
import type { RollRecord as Roll } from '../../rolls/store/records';
import { visibleRollIdInRoom, visibleRollIdsInRoom } from '../../rolls/store/visible';
import { canSeeRoll, toldOfClear } from '../../rolls/policy';
import { findParticipant } from '../../rooms/store/read';
import { memberUserIds } from '../../rooms/policy';
import { presentRoll, rollViewerClass } from '../../rolls/present';
import type { Broadcaster } from '../transport/broadcaster';
import { MEMBERS_CHANNEL, RoomEvents, roomNamespace, userChannel } from '../names';
import { emitPerViewer, type RollFeed } from './eventsToEmits';
import { roomMembers } from '../../rooms/present';
import { socketData } from '../connection/handshake';
import { REPLAY_LIMIT, type LoggedEntry, type SequenceReader } from '../transport/sequenceLog';

/**
 * Rolls, live: each roll is loaded once (one batch for the event), then presented once per class of
 * the room's members who may see it (rolls/present.ts rollViewerClass), and emitted once per class to those
 * members' channels: a whispered roll reaches only its roller and its recipients, a hidden
 * die's value only its roller, on every instance.
 */
export function createRollFeed(broadcaster: Broadcaster): RollFeed {
  return {
    async emitRolls(event, rollIds, slug, loaded) {
      const rolls = loaded?.size ? await withPreloaded(rollIds, loaded) : await loadRolls(rollIds);
      for (const roll of rolls) {
        if (roll.room?.slug !== slug) continue;
        if (!roll.isWhispered) {
          emitToRoom(broadcaster, roomNamespace(slug), event, roll);
          continue;
        }
        const viewers = new Set([...roomMembers(roll.room), roll.userId]);
        emitPerViewer(broadcaster, roomNamespace(slug), event, viewers, rollViewerClass(roll), (viewer) => presentRoll(roll, viewer), { event, rollId: roll.id });
      }
    },
  };
}

/**
 * A roll for the whole room: its roller and the room's owner each get their presentation on their own
 * channel, and every other socket of the room one shared presentation through the members channel
 * (presentRoll() depends on the viewer only through rollViewerClass(), and everyone else in the
 * namespace is a participant: the handshake admits no one else). Two or three emits whatever the
 * size of the room, each naming one or two channels: addressing every member's channel put a
 * thousand names into each Redis message of a room of 1,000.
 */
function emitToRoom(broadcaster: Broadcaster, namespace: string, event: 'RollCreateEvent' | 'RollUpdateEvent', roll: Roll): void {
  const classOf = rollViewerClass(roll);
  const special = [...new Set([roll.userId, roll.room!.userId])];
  let other: number | undefined;
  for (const id of memberUserIds(roll.room!)) {
    if (!special.includes(id)) {
      other = id;
      break;
    }
  }
  broadcaster.atomically(() => {
    for (const viewer of special) {
      if (classOf(viewer) !== undefined) broadcaster.emit({ namespace, to: [userChannel(viewer)] }, event, { data: presentRoll(roll, viewer) });
    }
    if (other !== undefined) broadcaster.emit({ namespace, to: [MEMBERS_CHANNEL], except: special.map(userChannel) }, event, { data: presentRoll(roll, other) });
  }, { event, rollId: roll.id });
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

/** At most this many rolls are replayed to a reconnecting socket: the latest ones, oldest first. */
export { REPLAY_LIMIT };

/**
 * A reconnecting socket said the last roll it saw (auth.since): send it, as RollCreateEvent and
 * in order, every roll of the room after that one that its user may see, as they are now. An
 * unknown `since` (not a roll of this room, or one its user may not see) replays nothing: the client
 * should reload the history. Sends through `send` (the welcome's direct emits, welcomeHold.ts) and
 * answers the uuids sent, so that the same roll heard live meanwhile is not sent twice (null: no
 * replay, `since` absent or unknown).
 */
export async function replayMissedRolls(
  socket: Socket,
  send: (event: string, payload: unknown) => void = (e, p) => socket.emit(e, p),
  /** Rolls not to send (already replayed from the log, or published, by id). */
  skip?: ReadonlySet<number>,
): Promise<Set<string> | null> {
  const sent = new Set<string>();
  const { since, room, user } = socketData(socket);
  if (!since || !room) return null;
  const sinceId = await visibleRollIdInRoom(since, room.id, user.id);
  if (sinceId === null) return null;
  const newestFirst = await visibleRollIdsInRoom(room.id, user.id, null, REPLAY_LIMIT);
  const missed = newestFirst.filter((id) => id > sinceId && !skip?.has(id)).slice(0, REPLAY_LIMIT).reverse();
  if (!missed.length) return sent;
  const rolls = await loadRolls(missed);
  for (const roll of rolls) {
    if (!socket.connected) return sent;
    if (!canSeeRoll(roll, user.id)) continue;
    send(RoomEvents.RollCreate, { data: presentRoll(roll, user.id) });
    sent.add(roll.uuid);
  }
  return sent;
}

/**
 * A reconnecting socket said the last seq it saw (auth.since_seq) and the room's log covers it: send
 * it the logged events after it, in seq order, each with its seq, as its user may see them now
 * (canSeeRoll and presentRoll, as live; a roll deleted since is skipped: its RollDeleteEvent follows).
 * A cleared table is replayed only to a participant who was in the room when it was cleared (toldOfClear):
 * a since_seq from before one joined must not name the rolls it never saw.
 * Answers the uuids of the rolls sent as RollCreateEvent.
 */
export async function replayLogged(socket: Socket, logged: readonly LoggedEntry[], send: (event: string, payload: unknown) => void): Promise<Set<string>> {
  const sent = new Set<string>();
  const { room, user } = socketData(socket);
  if (!room || !logged.length) return sent;
  const ids = logged.flatMap(({ entry }) => (entry.event === RoomEvents.RollDelete ? [] : [entry.rollId]));
  const clears = logged.some(({ entry }) => entry.event === RoomEvents.RollDelete);
  const [loaded, seat] = await Promise.all([loadRolls([...new Set(ids)]), clears ? findParticipant(room.id, user.id) : null]);
  const rolls = new Map(loaded.map((roll) => [roll.id, roll]));
  for (const { seq, entry } of logged) {
    if (!socket.connected) return sent;
    if (entry.event === RoomEvents.RollDelete) {
      if (!toldOfClear(seat?.createdAt ?? null, entry.at)) continue;
      for (const { uuid, audience } of entry.rolls) {
        if (!audience || audience.includes(user.id)) send(RoomEvents.RollDelete, { data: { uuid }, seq });
      }
      continue;
    }
    const roll = rolls.get(entry.rollId);
    if (!roll || roll.room?.id !== room.id || !canSeeRoll(roll, user.id)) continue;
    send(entry.event, { data: presentRoll(roll, user.id), seq });
    if (entry.event === RoomEvents.RollCreate) sent.add(roll.uuid);
  }
  return sent;
}

/**
 * How far back before a client's `since_seq` the log is searched for the rolls it already holds (µs of
 * seq; seqs follow the clock): a roll after `since` in the database but numbered before `since_seq`
 * reached the client then (two instances' rolls are numbered in the order they reach Redis, not of
 * their ids).
 */
const UNLOGGED_LOOKBACK = 5 * 60 * 1_000_000;

/**
 * The welcome's replay (namespaces.ts RealtimeContext.replay): from the log when it covers `since_seq`,
 * else by `since`. With both, the log's replay is followed by the stored rolls after `since` that the
 * log lacks (the database is the truth for rolls: one whose instance died before publishing it, or
 * whose block Redis lost, was never numbered), each once: those in the log, replayed or already seen,
 * are left out. One still being published as the welcome runs is sent here, and its live copy is left
 * out by uuid (namespaces.ts).
 */
export async function replayMissed(
  socket: Socket,
  send: (event: string, payload: unknown) => void,
  logged: readonly LoggedEntry[] | null,
  sequence?: SequenceReader,
): Promise<Set<string> | null> {
  if (!logged) return replayMissedRolls(socket, send);
  const sent = await replayLogged(socket, logged, send);
  const { since, sinceSeq } = socketData(socket);
  if (!since || !sequence || sinceSeq === null || sinceSeq === undefined || !socket.connected) return sent;
  const inLog = await sequence.loggedRollIds(socket.nsp.name, sinceSeq - UNLOGGED_LOOKBACK);
  for (const uuid of (await replayMissedRolls(socket, send, inLog)) ?? []) sent.add(uuid);
  return sent;
}
