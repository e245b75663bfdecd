import Joi from 'joi';
import { ownMoveAudience, type MoveAudience } from '../../rolls/policy';
import { findDraggedDie } from '../../rolls/store/visible';
import type { Broadcaster } from '../transport/broadcaster';
import { moveRotation, TokenBucket } from '../fanout/draggedDice';
import { ErrorCode, errorFrame } from './protocol';
import { pusherRooms, type Subscription } from './subscription';
import { CLIENT_RELAY_EVENT, type RelayedClientEvent } from './translate';

/**
 * Client events (`client-*`, the SDK's sendLocal: dragging dice). Only where the SDK sends them: on the
 * room's presence channel the connection is subscribed to (pusher:error 4300 on any other channel,
 * relayed nowhere: a private channel's only other subscribers are the sender's own connections, and a
 * relay there was a copy per connection of one user, for nothing). Relayed to every other subscriber on
 * every instance (through the adapter, so in the room's order), never echoed, at most so many a second
 * per connection (pusher:error 4301 past it, as hosted Pusher does). What passes is only what a drag
 * needs, the same as the Socket.IO drags (fanout/draggedDice.ts): the renderer's three move events, about dice of
 * this room that the sender rolled, each die its uuid, position and rotation; everything else the
 * client put in is dropped, a `value` above all (the stock renderer turns it face up on every board).
 * Each recipient gets its own copy: a die of a roll it may not see is dropped, a die whose value it may
 * not see loses its rotation (rolls/policy.ts moveAudience).
 */
export const MOVE_CLIENT_EVENTS: ReadonlySet<string> = new Set(['client-RollValueMoveStartEvent', 'client-RollValueMoveEvent', 'client-RollValueMoveEndEvent']);

const COORDINATE = Joi.number().min(-1e6).max(1e6);
// The SDK sends {x, z} in percent of the board; y is accepted for other renderers.
const position = Joi.object({ x: COORDINATE, y: COORDINATE, z: COORDINATE });
const die = Joi.object({
  uuid: Joi.string().guid().required(),
  meta: Joi.object({ position, rotation: moveRotation }),
});
const movePayload = Joi.object({ dice: Joi.array().items(die).min(1).max(20).required(), room: Joi.string().max(100) });

interface MoveDie {
  uuid: string;
  meta?: { position?: { x?: number; y?: number; z?: number }; rotation?: { x: number; y: number; z: number; w?: number } };
}

/** Relays of one connection: its rate, and the audiences of the dice it drags (a few, looked up once per drag). */
export class ClientEventRelay {
  private readonly bucket: TokenBucket;
  private readonly audiences = new Map<string, Promise<MoveAudience | null>>();
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly socketId: string,
    private readonly broadcaster: Broadcaster,
    private readonly send: (frame: string) => void,
    perSecond: number,
  ) {
    this.bucket = new TokenBucket(perSecond, perSecond);
  }

  /** One `client-*` message on `sub` (null: not subscribed to that channel). */
  handle(sub: Subscription | null, event: string, data: Record<string, unknown>): void {
    if (!sub || sub.channel.kind !== 'presence-room')
      return this.send(
        errorFrame(
          ErrorCode.Generic,
          "Client events go on the room's presence channel (presence-room.{slug}) this connection is subscribed to, and nowhere else.",
        ),
      );
    if (!this.bucket.take()) return this.send(errorFrame(ErrorCode.ClientEventRateLimit, 'Too many client events: at most so many a second per connection.'));
    if (!MOVE_CLIENT_EVENTS.has(event))
      return this.send(errorFrame(ErrorCode.Generic, `A room's presence channel relays only ${[...MOVE_CLIENT_EVENTS].join(', ')}.`));
    const { error, value } = movePayload.validate(data, { stripUnknown: true, convert: false }) as { error?: Joi.ValidationError; value: { dice: MoveDie[] } };
    if (error) return this.send(errorFrame(ErrorCode.Generic, `Not relayed: ${error.message}.`));
    // One connection's events are relayed in the order it sent them.
    this.chain = this.chain.then(() => this.relayMove(sub, event, value.dice)).catch(() => undefined);
  }

  private audienceOf(uuid: string, roomId: number, userId: number, fresh: boolean): Promise<MoveAudience | null> {
    let found = fresh ? undefined : this.audiences.get(uuid);
    if (!found) {
      found = findDraggedDie(uuid).then(
        (d) => ownMoveAudience(d, roomId, userId),
        () => null,
      );
      this.audiences.delete(uuid);
      this.audiences.set(uuid, found);
      if (this.audiences.size > 32) this.audiences.delete(this.audiences.keys().next().value!);
    }
    return found;
  }

  private async relayMove(sub: Subscription, event: string, dice: MoveDie[]): Promise<void> {
    const fresh = event === 'client-RollValueMoveStartEvent';
    const known = (await Promise.all(dice.map(async (d) => ({ die: d, audience: await this.audienceOf(d.uuid, sub.room!.id, sub.user.id, fresh) })))).filter(
      (x) => x.audience,
    );
    if (sub.ended || !known.length) return;
    const slug = sub.room!.slug;
    // Who is named anywhere (rollers, whisper recipients) gets a copy of their own; everyone else one shared copy.
    const named = new Set<number>();
    for (const { audience } of known) {
      if (audience!.rollVisibleTo !== 'all') audience!.rollVisibleTo.forEach((id) => named.add(id));
      if (audience!.valueVisibleTo !== 'all') audience!.valueVisibleTo.forEach((id) => named.add(id));
    }
    const copyFor = (viewer: number | null) => {
      const out: MoveDie[] = [];
      for (const { die, audience } of known) {
        const { rollVisibleTo, valueVisibleTo } = audience!;
        if (rollVisibleTo !== 'all' && (viewer === null || !rollVisibleTo.includes(viewer))) continue;
        // A die at rest shows its value through its rotation: only those who may see the value get it.
        const seesValue = valueVisibleTo === 'all' || (viewer !== null && valueVisibleTo.includes(viewer));
        const meta = {
          ...(die.meta?.position ? { position: die.meta.position } : {}),
          ...(seesValue && die.meta?.rotation ? { rotation: die.meta.rotation } : {}),
        };
        out.push(Object.keys(meta).length ? { uuid: die.uuid, meta } : { uuid: die.uuid });
      }
      return out;
    };
    this.broadcaster.atomically(() => {
      for (const viewer of named) {
        const mine = copyFor(viewer);
        if (mine.length) this.relay(sub, [pusherRooms.user(viewer)], [], event, { dice: mine, room: slug });
      }
      const shared = copyFor(null);
      if (shared.length) this.relay(sub, [pusherRooms.presence], [...named].map(pusherRooms.user), event, { dice: shared, room: slug });
    });
  }

  private relay(sub: Subscription, to: string[], except: string[], event: string, payload: unknown): void {
    const data: RelayedClientEvent['data'] = { event, channel: sub.channel.name, userUuid: sub.user.uuid, payload };
    this.broadcaster.emit({ namespace: sub.nsp.name, to, except: [...except, pusherRooms.socket(this.socketId)] }, CLIENT_RELAY_EVENT, { data });
  }
}
