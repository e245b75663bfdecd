import { readRoomBySlug } from '../../rooms/store/read';
import type { ParticipantRecord as Participant, RoomRecord as Room } from '../../rooms/store/records';
import { presentParticipant, presentRoom, roomViewerClass, type PresentedParticipant, type PresentedRoom } from '../../rooms/present';
import type { Socket } from 'socket.io';
import { RoomEvents } from '../names';
import { encodeEvent, type EncodedEvent } from './encodeOnce';

/**
 * A room as loaded once for the sockets that connected together, with each presentation made once:
 * the room per viewer class (presentRoom depends on the viewer only through roomViewerClass) and
 * each participant. Held only while those sockets are welcomed, never by a socket.
 */
export class RoomSnapshot {
  private readonly participants: Map<number, Participant>;
  private readonly classOf: (viewerId: number) => string;
  private readonly rooms = new Map<string, PresentedRoom>();
  private readonly presented = new Map<number, PresentedParticipant>();
  /** The welcome's events, encoded once for every socket of the namespace (encodeOnce.ts). */
  private readonly encoded = new Map<string, EncodedEvent>();

  /**
   * The room's seq read just before the room (null when it could not be read): every event with a seq
   * up to it was published before the read, so this snapshot holds it, and one after it reaches the
   * socket live (welcome.ts).
   */
  constructor(
    readonly room: Room,
    readonly head: number | null = null,
  ) {
    this.participants = new Map((room.participants ?? []).map((p) => [p.userId, p]));
    this.classOf = roomViewerClass(room);
  }

  isParticipant(userId: number): boolean {
    return this.participants.has(userId);
  }

  /** The users who are participants, in the room's order. */
  participantUserIds(): number[] {
    return [...this.participants.keys()];
  }

  /** What GET /room/{slug} answers `viewerId` (shared: do not change it). */
  roomFor(viewerId: number): PresentedRoom {
    const key = this.classOf(viewerId);
    let presented = this.rooms.get(key);
    if (!presented) this.rooms.set(key, (presented = presentRoom(this.room, viewerId)));
    return presented;
  }

  /**
   * RoomUpdateEvent presenting this room as `viewerId` may see it, with `seq` when given, encoded for
   * `socket`'s namespace once per class and seq.
   */
  encodedRoomUpdate(socket: Socket, viewerId: number, seq?: number): EncodedEvent {
    const payload = () => (seq === undefined ? { data: this.roomFor(viewerId) } : { data: this.roomFor(viewerId), seq });
    return this.encodedOnce(`room:${this.classOf(viewerId)}:${seq ?? ''}`, () => encodeEvent(socket, RoomEvents.RoomUpdate, payload()));
  }

  /** ParticipantConnectEvent for the participant of `userId`, encoded once; undefined when there is none. */
  encodedParticipantConnect(socket: Socket, userId: number): EncodedEvent | undefined {
    const participant = this.participant(userId);
    if (!participant) return undefined;
    return this.encodedOnce(`connect:${userId}`, () => encodeEvent(socket, RoomEvents.ParticipantConnect, { data: participant }));
  }

  private encodedOnce(key: string, encode: () => EncodedEvent): EncodedEvent {
    let packet = this.encoded.get(key);
    if (!packet) this.encoded.set(key, (packet = encode()));
    return packet;
  }

  /** The participant of `userId` as `room.participants` shows it, or undefined (shared: do not change it). */
  participant(userId: number): PresentedParticipant | undefined {
    let presented = this.presented.get(userId);
    if (!presented) {
      const participant = this.participants.get(userId);
      if (!participant) return undefined;
      this.presented.set(userId, (presented = presentParticipant(participant)));
    }
    return presented;
  }
}

/**
 * Fresh loads of a room, shared by the sockets that ask for it at the same time: per room at most
 * one load under way and one waiting for it to end, which everyone asking meanwhile shares. A load
 * already under way is never shared with a later asker: what a socket gets was read after it asked,
 * so it holds every change committed before that, as a load of its own would. (A socket asks once it
 * has joined its user's channel, so a change committed after the read reaches it as an event.)
 *
 * A burst of n connections to a room of n participants thus costs about as many loads as the burst
 * has waves, not n loads of n participants each.
 */
export class RoomLoads {
  private readonly rooms = new Map<string, { running: Promise<unknown> | null; waiting: Promise<RoomSnapshot | null> | null }>();

  constructor(
    private readonly read: (slug: string) => Promise<Room | null> = (slug) => readRoomBySlug(slug),
    /** The room's latest seq (transport/sequenceLog.ts), read before the room; a failure leaves the snapshot without one. */
    private readonly head?: (slug: string) => Promise<number>,
  ) {}

  load(slug: string): Promise<RoomSnapshot | null> {
    let entry = this.rooms.get(slug);
    if (!entry) this.rooms.set(slug, (entry = { running: null, waiting: null }));
    if (entry.waiting) return entry.waiting;
    const room = entry;
    const previous = room.running ?? Promise.resolve();
    room.waiting = previous
      .catch(() => undefined)
      .then(() => {
        // Under way from here: whoever asks now waits for the next load.
        room.waiting = null;
        const run = (this.head ? this.head(slug).catch(() => null) : Promise.resolve(null)).then((head) =>
          this.read(slug).then((found) => (found ? new RoomSnapshot(found, head) : null)),
        );
        room.running = run;
        void run
          .catch(() => undefined)
          .then(() => {
            if (room.running === run) room.running = null;
            if (!room.running && !room.waiting && this.rooms.get(slug) === room) this.rooms.delete(slug);
          });
        return run;
      });
    return room.waiting;
  }

  /** Rooms with a load under way or waiting (tests). */
  get size(): number {
    return this.rooms.size;
  }
}
