import type { Socket } from 'socket.io';
import { loadRolls } from '../../rolls/store/load';
import { visibleRollIdInRoom, visibleRollIdsInRoom } from '../../rolls/store/visible';
import { canSeeRoll, toldOfClear } from '../../rolls/policy';
import { findParticipant } from '../../rooms/store/read';
import { presentRoll } from '../../rolls/present';
import { RoomEvents } from '../names';
import { socketData } from './handshake';
import { REPLAY_LIMIT, type LoggedEntry, type SequenceReader } from '../transport/sequenceLog';

/** At most this many rolls are replayed to a reconnecting socket: the latest ones, oldest first. */
export { REPLAY_LIMIT };

/**
 * A reconnecting socket said the last roll it saw (auth.since): send it, as RollCreateEvent and
 * in order, every roll of the room after that one that its user may see, as they are now. An
 * unknown `since` (not a roll of this room, or one its user may not see) replays nothing: the client
 * should reload the history. Sends through `send` (the welcome's direct emits, holdLiveEvents.ts) and
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
  const missed = newestFirst
    .filter((id) => id > sinceId && !skip?.has(id))
    .slice(0, REPLAY_LIMIT)
    .reverse();
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
 * The welcome's replay (welcome.ts WelcomeContext.replay): from the log when it covers `since_seq`,
 * else by `since`. With both, the log's replay is followed by the stored rolls after `since` that the
 * log lacks (the database is the truth for rolls: one whose instance died before publishing it, or
 * whose block Redis lost, was never numbered), each once: those in the log, replayed or already seen,
 * are left out. One still being published as the welcome runs is sent here, and its live copy is left
 * out by uuid (welcome.ts).
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
