import Joi from 'joi';
import type { Socket } from 'socket.io';
import type { Logger } from '../../logger';
import { MOVE_EVENT_NAMES, MoveEvents, userChannel, type MoveEventName } from '../names';
import { errorFields, guarded } from '../callbackGuards';
import { socketData } from '../connection/handshake';
import { ownMoveAudience, type MoveAudience } from '../../rolls/policy';
import { findDraggedDie } from '../../rolls/store/visible';

/**
 * Dragging a die: a client sends RollValueMove{Start,,End}Event with
 * `{uuid, position: {x, y, z}, rotation?: {x, y, z, w}}` (`roll_value_uuid` is accepted for `uuid`);
 * the server checks it, looks up which roll value it names (once per drag) and relays
 * `{data: {uuid, roll_uuid, position, rotation?, user: {uuid, username}}}` to the others in the room
 * who may see that roll: RollValueMoveEvent volatile (a late frame is worth nothing), start and end
 * reliably. Junk is dropped, never relayed; each socket is held to a rate (token bucket).
 */
const COORDINATE = Joi.number().min(-1e6).max(1e6).required();
const point3 = Joi.object({ x: COORDINATE, y: COORDINATE, z: COORDINATE }).unknown(false);
/** A quaternion ({x, y, z, w}) or Euler angles ({x, y, z}): both are what 3D engines send. Shared with the Pusher relay (pusher/clientEvents.ts). */
export const moveRotation = Joi.object({ x: COORDINATE, y: COORDINATE, z: COORDINATE, w: Joi.number().min(-1e6).max(1e6) }).unknown(false);
const rotation = moveRotation;

const base = {
  uuid: Joi.string().guid().required(),
  roll_uuid: Joi.string().guid(),
  rotation,
};

export const moveSchemas: Record<MoveEventName, Joi.ObjectSchema> = {
  [MoveEvents.Start]: Joi.object({ ...base, position: point3 }).rename('roll_value_uuid', 'uuid', { ignoreUndefined: true }),
  [MoveEvents.Move]: Joi.object({ ...base, position: point3.required() }).rename('roll_value_uuid', 'uuid', { ignoreUndefined: true }),
  [MoveEvents.End]: Joi.object({ ...base, position: point3 }).rename('roll_value_uuid', 'uuid', { ignoreUndefined: true }),
};

/** Fields a move may carry, extras included, before it is junk without a look at them. */
const MAX_MOVE_FIELDS = 16;

export interface MoveData {
  uuid: string;
  roll_uuid?: string;
  position?: { x: number; y: number; z: number };
  rotation?: { x: number; y: number; z: number; w?: number };
}

/** Validate one client payload; null for anything that is not a well-formed move. */
export function parseMove(event: MoveEventName, payload: unknown): MoveData | null {
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) return null;
  // A move has at most five fields; extras are stripped, but joi visits each one: 1,700 junk keys
  // (a 16 KiB packet) cost 0.75 ms to validate. Counting keys costs a fraction of that.
  if (Object.keys(payload).length > MAX_MOVE_FIELDS) return null;
  const { error, value } = moveSchemas[event].validate(payload, { stripUnknown: true, convert: false, abortEarly: true }) as {
    error?: Joi.ValidationError;
    value: unknown;
  };
  return error ? null : (value as MoveData);
}

/** A token bucket: `rate` events a second on average, bursts up to `burst`. */
export class TokenBucket {
  private tokens: number;
  private last = Date.now();

  constructor(
    private readonly rate: number,
    private readonly burst: number,
  ) {
    this.tokens = burst;
  }

  take(): boolean {
    const now = Date.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.rate);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

export interface MoveLimits {
  /** Move events a socket may send per second on average (a 60 fps drag fits). */
  perSecond: number;
  burst: number;
}

export const DEFAULT_MOVE_LIMITS: MoveLimits = { perSecond: 60, burst: 120 };

/** The drags one socket has in hand: roll value uuid -> who may see it; small and bounded. */
const DRAGS_PER_SOCKET = 16;

export function attachMoveRelay(socket: Socket, logger: Logger, limits: MoveLimits = DEFAULT_MOVE_LIMITS) {
  const bucket = new TokenBucket(limits.perSecond, limits.burst);
  const drags = new Map<string, Promise<MoveAudience | null>>();
  const { user, room } = socketData(socket);
  if (!room) return;
  let dropped = 0;

  const audienceOf = (uuid: string, fresh: boolean) => {
    let found = fresh ? undefined : drags.get(uuid);
    if (!found) {
      found = findDraggedDie(uuid)
        .then((die) => ownMoveAudience(die, room.id, user.id))
        .catch((err: Error) => {
          logger.warn({ err: err.message }, 'move audience lookup failed');
          return null;
        });
      drags.delete(uuid);
      drags.set(uuid, found);
      if (drags.size > DRAGS_PER_SOCKET) drags.delete(drags.keys().next().value!);
    }
    return found;
  };

  const relay = async (event: MoveEventName, move: MoveData) => {
    const audience = await audienceOf(move.uuid, event === MoveEvents.Start);
    if (event === MoveEvents.End) drags.delete(move.uuid);
    if (!audience || !socket.connected) return;
    const data = {
      uuid: move.uuid,
      roll_uuid: audience.rollUuid,
      ...(move.position ? { position: move.position } : {}),
      user: { uuid: user.uuid, username: user.username },
    };
    const withRotation = move.rotation ? { ...data, rotation: move.rotation } : data;
    // A die at rest shows its value through its rotation: a hidden die's rotation goes only to
    // those who may see its value; a whispered roll's dice move only for its audience.
    // Moves are volatile (a late frame is worth nothing, a skipped one is replaced by the next);
    // picking a die up and putting it down are not.
    const op = () => (event === MoveEvents.Move ? socket.broadcast.volatile : socket.broadcast);
    const { rollVisibleTo, valueVisibleTo } = audience;
    if (rollVisibleTo === 'all' && valueVisibleTo === 'all') {
      op().emit(event, { data: withRotation });
    } else if (rollVisibleTo === 'all') {
      const full = (valueVisibleTo as number[]).map(userChannel);
      if (full.length) op().to(full).emit(event, { data: withRotation });
      op().except(full).emit(event, { data });
    } else {
      const fullIds = valueVisibleTo === 'all' ? rollVisibleTo : valueVisibleTo;
      const others = rollVisibleTo.filter((id) => !fullIds.includes(id)).map(userChannel);
      if (fullIds.length) op().to(fullIds.map(userChannel)).emit(event, { data: withRotation });
      if (others.length) op().to(others).emit(event, { data });
    }
  };

  // One socket's moves are relayed in the order it sent them (a drag's start before its moves).
  let chain: Promise<void> = Promise.resolve();
  for (const event of MOVE_EVENT_NAMES) {
    // The payload is the client's: parseMove checks its shape; anything that still throws here is
    // logged and ends this socket only (callbackGuards.ts).
    const onMove = guarded(
      (payload: unknown) => {
        if (!bucket.take()) {
          if (dropped++ % 100 === 0) logger.debug({ user: user.id, event }, 'move events over the rate limit dropped');
          return;
        }
        const move = parseMove(event, payload);
        if (!move) return;
        chain = chain.then(() => relay(event, move)).catch((err: unknown) => logger.warn(errorFields(err), 'move relay failed'));
      },
      (err) => {
        logger.error({ ...errorFields(err), event }, 'move event failed; its socket is disconnected');
        socket.disconnect(true);
      },
    );
    socket.on(event, onMove);
  }
}
