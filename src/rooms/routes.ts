import { Router, type Request, type RequestHandler, type Response } from 'express';
import multer from 'multer';
import { NotFoundError, UnsupportedMediaTypeError, ValidationError } from '../errors';
import type { AppDeps } from '../http/deps';
import { one, page } from '../http/envelope';
import { multipart } from '../http/multipart';
import { trustedOrigin } from '../http/origin';
import { DEFAULT_PER_PAGE, listPath } from '../http/paging';
import { passcodeAttempts } from './passcodeAttempts';
import { rateLimit } from '../http/rateLimit';
import { validate } from '../http/validate';
import { viewRoom } from './access';
import { roomForBackground, setRoomBackground } from './background';
import { createRoom } from './create';
import { deleteRoom } from './delete';
import { BACKGROUND_FIELD, BACKGROUND_MAX_BYTES } from './image';
import { joinRoom } from './join';
import { removeParticipant, updateParticipant } from './participants';
import { presentRoom } from './present';
import * as s from './schema';
import { findRoomBackground, listRoomsOf } from './store/read';
import type { DiceTray, RoomRecord } from './store/records';
import { updateRoom } from './update';

/**
 * /api/1.0/room, behind `auth`. Only exact paths: `/room/:slug/roll` belongs to the rolls router
 * mounted after this one, so nothing here may match it. Thin handlers: validated input in, a use
 * case (which decides who may), a presenter out. `req.user` is set by `auth`.
 */
export function roomRoutes(deps: AppDeps): Router {
  const router = Router();
  // Wrong passcodes per user and room, wherever one is checked (viewing and joining).
  const attempt = passcodeAttempts(deps);

  const list: RequestHandler = async (req, res) => {
    const { page: n, per_page: perPage } = req.query as unknown as { page: number; per_page: number };
    const { rows, total } = await listRoomsOf(req.user!.id, n, perPage);
    res.json(
      page(
        'room',
        rows.map((r) => presentRoom(r, req.user!.id)),
        {
          path: listPath(req, deps.config),
          query: perPage !== DEFAULT_PER_PAGE ? { per_page: String(perPage) } : {},
          page: n,
          perPage,
          total,
        },
      ),
    );
  };

  const create: RequestHandler = async (req, res) => {
    const body = req.body as { name?: string; is_public?: boolean; passcode?: string | null };
    const room = await createRoom(req.user!, { name: body.name, isPublic: body.is_public, passcode: body.passcode });
    roomEnvelope(res, room, req.user!.id, 201);
  };

  /** A passcode in the query is a guess like one given to join: counted by `attempt` (PASSCODE_FAILURES_PER_HOUR). */
  const view: RequestHandler = async (req, res) => {
    const slug = req.params.slug as string;
    const passcode = (req.query as { passcode?: string }).passcode;
    const room = await attempt(req.user!.id, slug, passcode, () => viewRoom(slug, req.user!, passcode));
    roomEnvelope(res, room, req.user!.id);
  };

  const update: RequestHandler = async (req, res) => {
    const body = req.body as { name?: string; is_public?: boolean; passcode?: string | null; bg_file_path?: string | null };
    const room = await updateRoom(req.params.slug as string, req.user!, {
      name: body.name,
      isPublic: body.is_public,
      passcode: body.passcode,
      bgFilePath: body.bg_file_path,
    });
    roomEnvelope(res, room, req.user!.id);
  };

  /** The owner's check comes before the upload is read, so strangers cannot make the server buffer megabytes. */
  const setBackground: RequestHandler = async (req, res) => {
    const room = await roomForBackground(req.params.slug as string, req.user!);
    if (!req.is('multipart/form-data')) {
      throw new UnsupportedMediaTypeError(`Send the background as multipart/form-data, with the image in the field "${BACKGROUND_FIELD}".`);
    }
    await readUpload(req, res);
    if (!req.file) {
      throw new ValidationError([{ path: BACKGROUND_FIELD, message: `${BACKGROUND_FIELD} must be an image file (PNG, JPEG, WebP or GIF).` }]);
    }
    // Stored and shown to every participant: never the origin of an arbitrary Host (http/origin.ts).
    const updated = await setRoomBackground(room, req.user!, req.file.buffer, trustedOrigin(req, deps.config) ?? '');
    roomEnvelope(res, updated, req.user!.id);
  };

  const remove: RequestHandler = async (req, res) => {
    await deleteRoom(req.params.slug as string, req.user!);
    res.status(204).end();
  };

  const join: RequestHandler = async (req, res) => {
    const passcode = (req.body as { passcode?: string | null }).passcode || (req.query as { passcode?: string }).passcode;
    const slug = req.params.slug as string;
    const room = await attempt(req.user!.id, slug, passcode, () => joinRoom(slug, req.user!, passcode));
    roomEnvelope(res, room, req.user!.id);
  };

  const changeParticipant: RequestHandler = async (req, res) => {
    const body = req.body as { username?: string; color?: string; dice_tray?: DiceTray };
    const participantId = req.params.participant as unknown as number;
    const room = await updateParticipant(req.params.slug as string, participantId, req.user!, {
      username: body.username,
      color: body.color,
      diceTray: body.dice_tray,
    });
    roomEnvelope(res, room, req.user!.id);
  };

  const leave: RequestHandler = async (req, res) => {
    await removeParticipant(req.params.slug as string, req.params.participant as unknown as number, req.user!);
    res.status(204).end();
  };

  router.get('/', validate({ query: s.listQuery }), list);
  router.post('/', validate({ body: s.createBody }), create);
  router.get('/:slug', validate({ params: s.slugParams, query: s.passcodeQuery }), view);
  router.patch('/:slug', validate({ params: s.slugParams, body: s.updateBody }), update);
  router.post('/:slug', validate({ params: s.slugParams }), setBackground);
  router.delete('/:slug', validate({ params: s.slugParams }), remove);
  router.post('/:slug/participant', validate({ params: s.slugParams, query: s.passcodeQuery, body: s.joinBody }), join);
  router.patch('/:slug/participant/:participant', validate({ params: s.participantParams, body: s.participantBody }), changeParticipant);
  router.delete('/:slug/participant/:participant', validate({ params: s.participantParams }), leave);
  return router;
}

/**
 * /api/1.0/room routes that need no key, mounted before `auth`: background images, which browsers
 * load with <img src> (no Authorization header). Limited per client address instead.
 */
export function roomPublicRoutes(deps: AppDeps): Router {
  const router = Router();
  const perAddress = rateLimit(
    deps.rateLimitStore,
    { name: 'room-bg', limit: deps.config.rateLimitPerMinute, windowMs: 60_000, key: (req) => req.ip ?? 'unknown' },
    deps.logger,
  );
  router.get('/:slug/background/:file', perAddress, validate({ params: s.backgroundParams }), background);
  return router;
}

const roomEnvelope = (res: Response, room: RoomRecord, viewerId: number, status = 200) => res.status(status).json(one('room', presentRoom(room, viewerId)));

/** multer for the one background file; its errors (size, unexpected field, a malformed body) reach the error handler. */
const upload = multipart(
  multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: BACKGROUND_MAX_BYTES, files: 1, fields: 10, fieldSize: 4096, parts: 12 },
  }).single(BACKGROUND_FIELD),
);

/** The upload read into req.file (multer), or its error thrown. */
function readUpload(req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    void upload(req, res, (err?: unknown) => (err ? reject(err as Error) : resolve()));
  });
}

/**
 * The background image itself, without a key (an <img> cannot send one): the URL carries the
 * room's unguessable slug and the image's SHA-256, so only those who were shown the room know it.
 */
const background: RequestHandler = async (req, res) => {
  const sha256 = (req.params.file as string).slice(0, 64);
  const image = await findRoomBackground(req.params.slug as string, sha256);
  if (!image) throw new NotFoundError('There is no such background image.');
  res
    .status(200)
    .set({
      'Content-Type': image.contentType,
      'Content-Length': String(image.size),
      // The URL names the content: it never changes, so it may be cached for good, though not by shared caches.
      'Cache-Control': 'private, max-age=31536000, immutable',
      ETag: `"${image.sha256}"`,
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; sandbox",
      'Cross-Origin-Resource-Policy': 'cross-origin',
    })
    .end(Buffer.from(image.data));
};
