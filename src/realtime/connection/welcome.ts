import type { Socket } from 'socket.io';
import type { Broadcaster } from '../transport/broadcaster';
import type { LoggedEntry } from '../transport/sequenceLog';
import { livePayload, seqOf } from '../transport/preSerialized';
import type { Logger } from '../../logger';
import { MEMBERS_CHANNEL, RoomEvents, userChannel } from '../names';
import { sendEncoded } from './encodeOnce';
import { socketData, type SocketData } from './handshake';
import { holdLiveEvents, type WelcomeHold } from './holdLiveEvents';
import type { PresenceStore } from './presence';
import type { RoomLoads } from './roomSnapshots';

/** What a welcome uses of the realtime context (namespaces.ts RealtimeContext holds it). */
export interface WelcomeContext {
  logger: Logger;
  broadcaster: Broadcaster;
  presence: PresenceStore;
  /**
   * Sends what a reconnecting socket missed, oldest first: the logged events after `auth.since_seq`
   * when `logged` has them (the log covers it), or else the rolls after `auth.since`. Answers the roll
   * uuids sent as RollCreateEvent, or null when there was nothing to replay from (no since, unknown since).
   */
  replay?: (socket: Socket, send: (event: string, payload: unknown) => void, logged: readonly LoggedEntry[] | null) => Promise<Set<string> | null>;
  /** Fresh room loads shared by sockets connecting together; setupNamespaces makes one if absent. */
  rooms?: RoomLoads;
}

/**
 * A socket's first moments, in an order that loses nothing: join the user's channel and the room's
 * members channel (room and roll events are addressed to them), count it present, then load the room afresh and
 * send it, announce the participant, and replay what it missed. A change committed before the
 * fresh load or the replay query is in them; one committed after is announced after the socket
 * joined its channel, so it arrives live.
 */
export async function welcome(ctx: WelcomeContext, socket: Socket): Promise<void> {
  // Live events reaching the socket meanwhile wait until the welcome is out (holdLiveEvents.ts).
  const hold = holdLiveEvents(socket);
  const told = new Set<number>();
  const position: Position = { head: null, replayed: null };
  try {
    await welcomeInOrder(ctx, socket, hold, told, position);
  } finally {
    const { head, replayed } = position;
    // What the welcome already gave, however late its live copy comes (holdLiveEvents.ts LATE_SKIP_MS):
    // a roll is published after its commit, so one the replay read may reach the socket live after it.
    // Payloads that crossed Redis are JSON text (transport/preSerialized.ts): the seq is read without
    // parsing, the rest parsed only when a replay ran (this rule sees every event for LATE_SKIP_MS).
    const given = (event: string, payload: unknown) => {
      const seq = seqOf(payload);
      // Published before the room's seq was read: the welcome's snapshot holds it, and the replay, when
      // one ran, the roll events (without one, a roll of that moment still goes out, late but not lost).
      if (head !== null && typeof seq === 'number' && seq <= head && (replayed !== null || !ROLL_EVENTS.has(event))) return true;
      if (event !== RoomEvents.RollCreate || replayed === null) return false;
      const uuid = (livePayload(payload) as { data?: { uuid?: string } } | undefined)?.data?.uuid;
      return uuid !== undefined && replayed.has(uuid);
    };
    hold.release((event, payload) => {
      // Counted online in the welcome's list: not announced again (only while held: a later
      // ParticipantConnectEvent of the same participant is a new connection).
      if (event === RoomEvents.ParticipantConnect) {
        const id = (livePayload(payload) as { data?: { id?: number } } | undefined)?.data?.id;
        return id !== undefined && told.has(id);
      }
      return given(event, payload);
    }, given);
  }
}

const ROLL_EVENTS: ReadonlySet<string> = new Set([RoomEvents.RollCreate, RoomEvents.RollUpdate, RoomEvents.RollDelete]);

/** Where a welcome left a socket: the seq its snapshot was read at, and the uuids replayed (null: no replay ran). */
interface Position {
  head: number | null;
  replayed: Set<string> | null;
}

/**
 * The welcome itself; its own emits go out through `hold.direct`, everything else waits. Sets
 * `position.head` to the room's seq its snapshot was read at (live events up to it are left out).
 */
async function welcomeInOrder(ctx: WelcomeContext, socket: Socket, hold: WelcomeHold, told: Set<number>, position: Position): Promise<void> {
  const data = socketData(socket);
  const {
    user,
    room: { slug },
  } = data as Required<SocketData>;
  await socket.join([userChannel(user.id), MEMBERS_CHANNEL]);
  // Counted from here (the store remembers it even when Redis is away, and restores it later).
  data.present = true;
  let first = false;
  try {
    first = await withinPresenceWait(ctx.presence.join(slug, user.id));
  } catch (err) {
    ctx.logger.warn({ err: (err as Error).message, room: slug }, 'presence join failed; continuing without it');
  }
  // Read, presented and let go: the socket keeps ids only (handshake.ts SocketData). Sockets that
  // connect together share one load and its presentations (roomSnapshots.ts).
  const room = await ctx.rooms!.load(slug);
  const participant = room?.participant(user.id);
  if (!room || !participant) {
    // Gone, or removed since the handshake admitted it: the removal's disconnect may have gone out
    // before this socket joined its channel, so it would stay, hearing the room's moves and presence.
    socket.disconnect(true);
    return;
  }
  // The log after the client's last seq, when it covers it (transport/sequenceLog.ts); null: replay by `since`.
  const { head } = room;
  position.head = head;
  let logged: LoggedEntry[] | null = null;
  if (head !== null && data.sinceSeq !== undefined && data.sinceSeq !== null) {
    logged = await ctx.broadcaster.sequence.read(socket.nsp.name, data.sinceSeq, head).catch((err: Error) => {
      ctx.logger.warn({ err: err.message, room: slug }, 'could not read the room log; replaying by since');
      return null;
    });
  }
  // Its seq says where this socket's stream goes on from: the client's own when the log replays what
  // follows it, else the snapshot's (everything up to it is in the room as sent).
  const seq = head === null ? undefined : logged ? data.sinceSeq! : head;
  hold.direct(() => sendEncoded(socket, room.encodedRoomUpdate(socket, user.id, seq)));
  data.participant = participant;
  if (first) {
    ctx.broadcaster.emit({ namespace: socket.nsp.name }, RoomEvents.ParticipantConnect, { data: participant });
  }
  // Tell the newcomer who is already here, in the same words (and not again if that arrives live).
  const online = new Set(await withinPresenceWait(ctx.presence.users(slug)).catch(() => [] as number[]));
  for (const userId of room.participantUserIds()) {
    if (userId === user.id || !online.has(userId)) continue;
    const other = room.participant(userId);
    const encoded = room.encodedParticipantConnect(socket, userId);
    if (!other || !encoded) continue;
    hold.direct(() => sendEncoded(socket, encoded));
    told.add(other.id);
  }
  if (ctx.replay) position.replayed = await ctx.replay(socket, (event, payload) => hold.direct(() => socket.emit(event, payload)), logged);
}

/**
 * A welcome waits for presence at most this long: a Redis master that died and is not yet replaced
 * would hold every new socket of its rooms for seconds. Presence is then what the store restores later.
 */
const PRESENCE_WAIT_MS = 2000;

function withinPresenceWait<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  promise.catch(() => undefined);
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`presence did not answer within ${PRESENCE_WAIT_MS} ms`)), PRESENCE_WAIT_MS);
    }),
  ]).finally(() => clearTimeout(timer));
}
