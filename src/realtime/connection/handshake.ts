import type { Socket } from 'socket.io';
import { authenticate } from '../../users/apiKeys';
import { authorizeRoomConnection } from '../../rooms/access';
import { AppError, RateLimitError, UnauthorizedError } from '../../errors';
import type { RateLimitStore } from '../../http/rateLimit';
import { bearerKey } from '../../users/auth';
import { clientAddress, type TrustFn } from '../../http/clientAddress';
import type { Logger } from '../../logger';
import type { UserRecord as User } from '../../users/store';
import type { PresentedParticipant } from '../../rooms/present';
import { slugOfNamespace } from '../names';

/** The user behind a socket: what the realtime code reads (channels, presence, the moves relay). */
export interface SocketUser {
  id: number;
  uuid: string;
  username: string;
}

/** The room of a `/room/{slug}` socket, by id and slug: what changes in it is read when needed. */
export interface SocketRoom {
  id: number;
  slug: string;
}

/**
 * What a socket carries after its handshake (socket.data): ids and a few plain fields, never model
 * instances. Every socket of a busy instance holds one, for hours: a Sequelize User and a Room with
 * its participants and their users cost about 50 KiB per socket (docs/performance.md, bench:sockets).
 */
export interface SocketData {
  user: SocketUser;
  /** The API key the socket opened with: revoking it drops the socket (accessRechecks.ts). */
  keyId: number;
  /** Date.now() at the handshake: a resync (accessRechecks.ts) spares sockets that connected after the events lost. */
  connectedAt: number;
  /** Room namespaces only. */
  room?: SocketRoom;
  /** Room namespaces only: the last roll uuid the client saw (auth.since), for the replay. */
  since?: string | null;
  /** Room namespaces only: the seq of the last room event the client saw (auth.since_seq), for the replay. */
  sinceSeq?: number | null;
  /** Set once the socket is counted in the room's presence (so it is counted out exactly once). */
  present?: boolean;
  /** The participant as last presented to the room, for its ParticipantDisconnectEvent. */
  participant?: PresentedParticipant;
}

/** Copies, not references into the model instance: the instance must be free to go. */
function socketUser(user: User): SocketUser {
  return { id: user.id, uuid: user.uuid, username: user.username };
}

export function socketData(socket: Socket): SocketData {
  return socket.data as SocketData;
}

type Next = (err?: Error) => void;

/** Handshakes per client address per minute, counted in the API's rate-limit store (Redis when shared). */
export interface HandshakeLimit {
  store: RateLimitStore;
  perMinute: number;
  /** Which proxies may name the client (TRUST_PROXY): the same decision as the REST API's req.ip. */
  trust: TrustFn;
}

/** A handshake over the limit is refused with `rate_limited`; a failing store lets it through. */
async function checkRate(socket: Socket, limit: HandshakeLimit | undefined, logger: Logger): Promise<void> {
  if (!limit) return;
  let count: number;
  let resetMs: number;
  try {
    ({ count, resetMs } = await limit.store.hit(
      `socket:${clientAddress(socket.handshake.address, socket.handshake.headers['x-forwarded-for'], limit.trust)}`,
      60_000,
      limit.perMinute,
    ));
  } catch (err) {
    logger.warn({ err: (err as Error).message }, 'handshake rate limit store unavailable; handshake allowed');
    return;
  }
  if (count > limit.perMinute) throw new RateLimitError(Math.max(1, Math.ceil(resetMs / 1000)));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function stringField(source: unknown, name: string): string | null {
  if (!source || typeof source !== 'object') return null;
  const value = (source as Record<string, unknown>)[name];
  return typeof value === 'string' && value.length > 0 && value.length <= 512 ? value : null;
}

/**
 * `since_seq`: a seq as events carry it (a non-negative integer, transport/sequenceLog.ts), given as a number or,
 * from the query string, as its decimal digits. Answers undefined when absent, NaN when it is garbage.
 */
function seqField(source: unknown): number | undefined {
  if (!source || typeof source !== 'object') return undefined;
  const value = (source as Record<string, unknown>).since_seq;
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : NaN;
  if (typeof value === 'string' && /^\d{1,16}$/.test(value)) return seqField({ since_seq: Number(value) });
  return NaN;
}

/**
 * The credentials of a handshake: `auth: {token, passcode, since, since_seq}` first; the query string and an
 * `Authorization: Bearer` header as fall-backs for clients that cannot set `auth`.
 */
export function handshakeCredentials(socket: Socket) {
  const { auth, query, headers } = socket.handshake;
  const token = stringField(auth, 'token') ?? stringField(query, 'token') ?? bearerKey(headers.authorization);
  const passcode = stringField(auth, 'passcode') ?? stringField(query, 'passcode');
  const since = stringField(auth, 'since') ?? stringField(query, 'since');
  const rawSeq = auth && typeof auth === 'object' && 'since_seq' in auth ? seqField(auth) : seqField(query);
  return {
    token,
    passcode,
    since: since && UUID.test(since) ? since.toLowerCase() : null,
    badSince: Boolean(since && !UUID.test(since)),
    sinceSeq: rawSeq === undefined || Number.isNaN(rawSeq) ? null : rawSeq,
    badSinceSeq: rawSeq !== undefined && Number.isNaN(rawSeq),
  };
}

/**
 * A refused handshake reaches the client as `connect_error` with `err.message` = the error code
 * (`unauthorized`, `not_found`, `forbidden`) and `err.data` = `{code, message}` for people.
 */
export function connectError(code: string, message: string): Error {
  const err = new Error(code) as Error & { data: { code: string; message: string } };
  err.data = { code, message };
  return err;
}

function refuse(err: unknown, next: Next, logger: Logger) {
  if (err instanceof AppError) return next(connectError(err.code, err.message));
  logger.error({ err }, 'socket handshake failed');
  next(connectError('service_unavailable', 'The service is temporarily unavailable: try again shortly.'));
}

async function keyOf(socket: Socket): Promise<{ user: SocketUser; keyId: number }> {
  const { token } = handshakeCredentials(socket);
  if (!token) throw new UnauthorizedError('A valid API key is required: connect with auth: {token: "<key>"}.');
  const found = await authenticate(token);
  if (!found) throw new UnauthorizedError('The API key is unknown or has been revoked.');
  return { user: socketUser(found.user), keyId: found.apiKeyId };
}

/** `/user`: any valid key. */
export function userHandshake(logger: Logger, limit?: HandshakeLimit) {
  return async (socket: Socket, next: Next) => {
    try {
      await checkRate(socket, limit, logger);
      const { user, keyId } = await keyOf(socket);
      socket.data = { user, keyId, connectedAt: Date.now() } satisfies SocketData;
      next();
    } catch (err) {
      refuse(err, next, logger);
    }
  };
}

/** `/room/{slug}`: a valid key whose user is a participant of that room (authorizeRoomConnection). */
export function roomHandshake(logger: Logger, limit?: HandshakeLimit) {
  return async (socket: Socket, next: Next) => {
    try {
      await checkRate(socket, limit, logger);
      const { user, keyId } = await keyOf(socket);
      const slug = slugOfNamespace(socket.nsp.name);
      // The passcode is not needed (joining is where it is checked) and is accepted for clients that send it.
      const { since, badSince, sinceSeq, badSinceSeq } = handshakeCredentials(socket);
      const room = await authorizeRoomConnection(slug, user.id);
      if (badSince) return next(connectError('validation_error', 'auth.since must be the uuid of a roll.'));
      if (badSinceSeq) return next(connectError('validation_error', 'auth.since_seq must be the seq of an event (a non-negative integer).'));
      socket.data = { user, keyId, connectedAt: Date.now(), room, since, sinceSeq } satisfies SocketData;
      next();
    } catch (err) {
      refuse(err, next, logger);
    }
  };
}
