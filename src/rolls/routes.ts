import { Router, type RequestHandler } from 'express';
import type { AppDeps } from '../http/deps';
import { list, one } from '../http/envelope';
import { listPath } from '../http/paging';
import { validate } from '../http/validate';
import { clearRoomTable } from './clear';
import type { AddedDie } from './addDice';
import { createRoll, type DieInput } from './create';
import { idempotent } from './idempotency/middleware';
import { readRoomHistory } from './history';
import { cursorPage, presentRoll } from './present';
import { readRoll } from './read';
import { createBodyFastPath } from './createBodyFastPath';
import * as s from './schema';
import { updateRolls, updateRoomRolls, type DieChange, type DieFlags, type DiePosition } from './update';

/**
 * Roll routes, mounted at the /api/1.0 root behind `auth` (after the room router, which leaves
 * `/room/:slug/roll` to this one): full paths here. Each handler maps the validated request to its
 * use case's input, calls it, and presents the result; `req.user` is set by `auth`. Who may do what
 * is the use cases' and policy.ts's business, never a handler's.
 */
export function rollRoutes(deps: AppDeps): Router {
  const router = Router();

  /** GET /room/{slug}/roll: the room's history, newest first, cursor-paged. */
  const history: RequestHandler = async (req, res) => {
    const { before, limit, external_id: externalId } = req.query as unknown as { before?: string; limit: number; external_id?: string };
    const me = req.user!.id;
    const page = await readRoomHistory(req.user!, req.params.slug as string, { before, limit, externalId });
    const data = page.rolls.map((r) => presentRoll(r, me));
    const filter = externalId !== undefined ? { external_id: externalId } : undefined;
    res.json(cursorPage('roll', data, { path: listPath(req, deps.config), limit, nextBefore: page.nextBefore, filter }));
  };

  router.post('/roll', validate({ body: s.createBody, bodyFastPath: createBodyFastPath }), idempotent(deps.logger), create);
  router.patch('/roll', validate({ body: s.bulkBody }), updateMany);
  router.delete('/roll', validate({ query: s.clearQuery }), clear);
  router.get('/roll/:uuid', validate({ params: s.uuidParams }), read);
  router.patch('/roll/:uuid', validate({ params: s.uuidParams, body: s.updateBody }), updateOne);
  router.get('/room/:slug/roll', validate({ params: s.slugParams, query: s.historyQuery }), history);
  router.patch('/room/:slug/roll', validate({ params: s.slugParams, query: s.roomUpdateQuery, body: s.roomUpdateBody }), updateInRoom);
  return router;
}

interface DieBody {
  type: string;
  theme?: string;
  value?: number | null;
  value_to_display?: number | string | { src: string } | null;
  label?: string | null;
  is_hidden?: boolean;
  meta?: unknown;
}

interface CreateBody {
  dice?: DieBody[];
  equation?: string;
  theme?: string | null;
  operator?: Record<string, string | number | Record<string, number[]>> | null;
  label?: string | null;
  external_id?: string | null;
  room?: string | null;
  whisper?: number[] | null;
  direction?: number;
  velocity?: number;
  client_seed?: string | null;
}

interface FlagsBody {
  is_hidden?: boolean;
  is_visible?: boolean;
  is_cleared?: boolean;
}

interface DieChangeBody extends FlagsBody {
  uuid: string;
  meta?: { position?: DiePosition };
}

const toFlags = (d: FlagsBody): DieFlags => ({ isHidden: d.is_hidden, isVisible: d.is_visible, isCleared: d.is_cleared });
const toChange = (d: DieChangeBody): DieChange => ({ uuid: d.uuid, ...toFlags(d), ...(d.meta?.position ? { position: d.meta.position } : {}) });

const toDieInput = (d: DieBody): DieInput => ({
  type: d.type,
  theme: d.theme,
  value: d.value,
  valueToDisplay: d.value_to_display,
  label: d.label,
  isHidden: d.is_hidden,
  meta: d.meta,
});

const create: RequestHandler = async (req, res) => {
  const body = req.body as CreateBody;
  const roll = await createRoll(req.user!, {
    dice: body.dice?.map(toDieInput),
    equation: body.equation,
    theme: body.theme,
    operator: body.operator,
    label: body.label,
    externalId: body.external_id,
    room: body.room,
    whisper: body.whisper,
    direction: body.direction,
    velocity: body.velocity,
    clientSeed: body.client_seed || null,
  });
  res.status(201).json(one('roll', presentRoll(roll, req.user!.id)));
};

const read: RequestHandler = async (req, res) => {
  const roll = await readRoll(req.user!, req.params.uuid as string);
  res.json(one('roll', presentRoll(roll, req.user!.id)));
};

const updateOne: RequestHandler = async (req, res) => {
  const body = req.body as { dice: (DieChangeBody | DieBody)[] };
  const changes: DieChange[] = [];
  const added: AddedDie[] = [];
  body.dice.forEach((d, index) => {
    if ('uuid' in d) changes.push(toChange(d));
    else added.push({ index, ...toDieInput(d) });
  });
  const [roll] = await updateRolls(req.user!, [{ uuid: req.params.uuid as string, dice: changes, added }], () => '');
  res.json(one('roll', presentRoll(roll!, req.user!.id)));
};

const updateMany: RequestHandler = async (req, res) => {
  const body = req.body as { rolls: { uuid: string; dice: DieChangeBody[] }[] };
  const rolls = await updateRolls(
    req.user!,
    body.rolls.map((r) => ({ uuid: r.uuid, dice: r.dice.map(toChange) })),
    (i) => `rolls[${i}].`,
  );
  res.json(
    list(
      'roll',
      rolls.map((r) => presentRoll(r, req.user!.id)),
    ),
  );
};

const updateInRoom: RequestHandler = async (req, res) => {
  const { dice } = req.body as { dice: FlagsBody };
  const { participant } = req.query as { participant?: '*' | number };
  const scope = participant === undefined ? 'own' : participant === '*' ? 'all' : { participantId: participant };
  const rolls = await updateRoomRolls(req.user!, req.params.slug as string, toFlags(dice), scope);
  res.json(
    list(
      'roll',
      rolls.map((r) => presentRoll(r, req.user!.id)),
    ),
  );
};

const clear: RequestHandler = async (req, res) => {
  await clearRoomTable(req.user!, (req.query as { room: string }).room);
  res.status(204).end();
};
