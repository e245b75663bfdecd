import type { Response, RequestHandler } from 'express';
import multer from 'multer';
import { createRoom, deleteRoom, findRoomBackground, listRoomsOf, setRoomBackground, updateRoom } from './update';
import { joinRoom, removeParticipant, updateParticipant } from './participants';
import { requireRoomBySlug } from './access';
import { readRoomBySlug } from './store/read';
import { UnsupportedMediaTypeError, ValidationError, NotFoundError } from '../errors';
import type { AppDeps } from '../http/deps';
import { multipart } from '../http/multipart';
import type { PasscodeAttempt } from '../http/passcodeAttempts';
import { DEFAULT_PER_PAGE, listPath } from '../http/paging';
import { trustedOrigin } from '../http/origin';
import { authorizeRoomAccess, authorizeRoomOwner } from './policy';
import { one, page } from '../http/envelope';
import { presentRoom } from './present';
import { BACKGROUND_FIELD, BACKGROUND_MAX_BYTES } from './image';

/** Thin handlers: validated input in, a command, a presenter out. `req.user` is set by `auth`. */

const roomEnvelope = (res: Response, room: Parameters<typeof presentRoom>[0], viewerId: number, status = 200) =>
  res.status(status).json(one('room', presentRoom(room, viewerId)));

export function listRooms(deps: AppDeps): RequestHandler {
  return async (req, res) => {
    const { page: n, per_page: perPage } = req.query as unknown as { page: number; per_page: number };
    const { rows, total } = await listRoomsOf(req.user!.id, n, perPage);
    res.json(
      page('room', rows.map((r) => presentRoom(r, req.user!.id)), {
        path: listPath(req, deps.config),
        query: perPage !== DEFAULT_PER_PAGE ? { per_page: String(perPage) } : {},
        page: n,
        perPage,
        total,
      }),
    );
  };
}

export const createRoomHandler: RequestHandler = async (req, res) => {
  const body = req.body as { name?: string; is_public?: boolean; passcode?: string | null };
  const room = await createRoom(req.user!, { name: body.name, isPublic: body.is_public, passcode: body.passcode });
  roomEnvelope(res, room, req.user!.id, 201);
};

/** A passcode in the query is a guess like one given to join: counted by `attempt` (PASSCODE_FAILURES_PER_HOUR). */
export function getRoomHandler(attempt: PasscodeAttempt): RequestHandler {
  return async (req, res) => {
    const slug = req.params.slug as string;
    const passcode = (req.query as { passcode?: string }).passcode;
    const room = await attempt(req.user!.id, slug, passcode, async () => {
      const found = await readRoomBySlug(slug);
      if (!found) throw new NotFoundError(`There is no room "${String(slug).slice(0, 64)}".`);
      authorizeRoomAccess(found, req.user!, passcode);
      return found;
    });
    roomEnvelope(res, room, req.user!.id);
  };
}

export const updateRoomHandler: RequestHandler = async (req, res) => {
  const body = req.body as { name?: string; is_public?: boolean; passcode?: string | null; bg_file_path?: string | null };
  const room = await requireRoomBySlug(req.params.slug as string);
  const updated = await updateRoom(room, req.user!, { name: body.name, isPublic: body.is_public, passcode: body.passcode, bgFilePath: body.bg_file_path });
  roomEnvelope(res, updated, req.user!.id);
};

export const deleteRoomHandler: RequestHandler = async (req, res) => {
  const room = await requireRoomBySlug(req.params.slug as string);
  await deleteRoom(room, req.user!);
  res.status(204).end();
};

/**
 * Before the upload is read: the room exists and the caller owns it, so strangers cannot make the
 * server buffer megabytes. Leaves the room in res.locals.room.
 */
export const requireOwnedRoom: RequestHandler = async (req, res, next) => {
  const room = await requireRoomBySlug(req.params.slug as string);
  authorizeRoomOwner(room, req.user!, 'change its background');
  if (!req.is('multipart/form-data')) {
    throw new UnsupportedMediaTypeError(`Send the background as multipart/form-data, with the image in the field "${BACKGROUND_FIELD}".`);
  }
  res.locals.room = room;
  next();
};

const upload = multer({
  storage: multer.memoryStorage(),
  limits: { fileSize: BACKGROUND_MAX_BYTES, files: 1, fields: 10, fieldSize: 4096, parts: 12 },
}).single(BACKGROUND_FIELD);

/** multer for the one background file; its errors (size, unexpected field, a malformed body) reach the error handler. */
export const backgroundUpload: RequestHandler = multipart(upload);

export function setBackgroundHandler(deps: AppDeps): RequestHandler {
  return async (req, res) => {
    if (!req.file) {
      throw new ValidationError([{ path: BACKGROUND_FIELD, message: `${BACKGROUND_FIELD} must be an image file (PNG, JPEG, WebP or GIF).` }]);
    }
    // Stored and shown to every participant: never the origin of an arbitrary Host (http/origin.ts).
    const room = await setRoomBackground(res.locals.room, req.user!, req.file.buffer, trustedOrigin(req, deps.config) ?? '');
    roomEnvelope(res, room, req.user!.id);
  };
}

/**
 * The background image itself, without a key (an <img> cannot send one): the URL carries the
 * room's unguessable slug and the image's SHA-256, so only those who were shown the room know it.
 */
export const getBackgroundHandler: RequestHandler = async (req, res) => {
  const sha256 = (req.params.file as string).slice(0, 64);
  const background = await findRoomBackground(req.params.slug as string, sha256);
  if (!background) throw new NotFoundError('There is no such background image.');
  res
    .status(200)
    .set({
      'Content-Type': background.contentType,
      'Content-Length': String(background.size),
      // The URL names the content: it never changes, so it may be cached for good, though not by shared caches.
      'Cache-Control': 'private, max-age=31536000, immutable',
      ETag: `"${background.sha256}"`,
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; sandbox",
      'Cross-Origin-Resource-Policy': 'cross-origin',
    })
    .end(Buffer.from(background.data));
};

export function joinHandler(attempt: PasscodeAttempt): RequestHandler {
  return async (req, res) => {
    const passcode = (req.body as { passcode?: string | null }).passcode || (req.query as { passcode?: string }).passcode;
    const slug = req.params.slug as string;
    const room = await attempt(req.user!.id, slug, passcode, () => joinRoom(slug, req.user!, passcode));
    roomEnvelope(res, room, req.user!.id);
  };
}

export const updateParticipantHandler: RequestHandler = async (req, res) => {
  const body = req.body as { username?: string; color?: string };
  const participantId = req.params.participant as unknown as number;
  const room = await updateParticipant(req.params.slug as string, participantId, req.user!, { username: body.username, color: body.color });
  roomEnvelope(res, room, req.user!.id);
};

export const removeParticipantHandler: RequestHandler = async (req, res) => {
  await removeParticipant(req.params.slug as string, req.params.participant as unknown as number, req.user!);
  res.status(204).end();
};
