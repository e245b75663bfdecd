import type { RequestHandler } from 'express';
import { createRoll } from '../../commands/rolls';
import { loadRollByUuid, loadRolls, visibleRollIdInRoom, visibleRollIdsInRoom } from '../../commands/rollsLoad';
import { clearRoomTable, updateRolls, updateRoomRolls, type DieChange, type DieFlags } from '../../commands/rollsUpdate';
import { requireRoomBySlug } from '../../rooms/access';
import { ForbiddenError } from '../../errors';
import type { AppDeps } from '../../http/deps';
import { listPath } from '../../http/paging';
import { authorizeRollView } from '../../policies/rolls';
import { isParticipant } from '../../rooms/policy';
import { list, one } from '../../http/envelope';
import { cursorPage, presentRoll } from '../../presenters/roll';

/** Thin handlers: validated input in, a command, a presenter out. `req.user` is set by `auth`. */

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
}

interface DieChangeBody {
  uuid: string;
  is_hidden?: boolean;
  is_visible?: boolean;
  is_cleared?: boolean;
}

const toChange = (d: DieChangeBody): DieChange => ({ uuid: d.uuid, isHidden: d.is_hidden, isVisible: d.is_visible, isCleared: d.is_cleared });

export const createRollHandler: RequestHandler = async (req, res) => {
  const body = req.body as CreateBody;
  const { roll, created } = await createRoll(req.user!, {
    dice: body.dice?.map((d) => ({
      type: d.type,
      theme: d.theme,
      value: d.value,
      valueToDisplay: d.value_to_display,
      label: d.label,
      isHidden: d.is_hidden,
      meta: d.meta,
    })),
    equation: body.equation,
    theme: body.theme,
    operator: body.operator,
    label: body.label,
    externalId: body.external_id,
    room: body.room,
    whisper: body.whisper,
    direction: body.direction,
    velocity: body.velocity,
  });
  res.status(created ? 201 : 200).json(one('roll', presentRoll(roll, req.user!.id)));
};

export const getRollHandler: RequestHandler = async (req, res) => {
  const uuid = req.params.uuid as string;
  const roll = authorizeRollView(await loadRollByUuid(uuid), req.user!.id, uuid);
  res.json(one('roll', presentRoll(roll, req.user!.id)));
};

export const updateRollHandler: RequestHandler = async (req, res) => {
  const body = req.body as { dice: DieChangeBody[] };
  const [roll] = await updateRolls(req.user!, [{ uuid: req.params.uuid as string, dice: body.dice.map(toChange) }], () => '');
  res.json(one('roll', presentRoll(roll!, req.user!.id)));
};

export const updateRollsHandler: RequestHandler = async (req, res) => {
  const body = req.body as { rolls: { uuid: string; dice: DieChangeBody[] }[] };
  const rolls = await updateRolls(
    req.user!,
    body.rolls.map((r) => ({ uuid: r.uuid, dice: r.dice.map(toChange) })),
    (i) => `rolls[${i}].`,
  );
  res.json(list('roll', rolls.map((r) => presentRoll(r, req.user!.id))));
};

export const updateRoomRollsHandler: RequestHandler = async (req, res) => {
  const { dice } = req.body as { dice: { is_hidden?: boolean; is_visible?: boolean; is_cleared?: boolean } };
  const flags: DieFlags = { isHidden: dice.is_hidden, isVisible: dice.is_visible, isCleared: dice.is_cleared };
  const rolls = await updateRoomRolls(req.user!, req.params.slug as string, flags);
  res.json(list('roll', rolls.map((r) => presentRoll(r, req.user!.id))));
};

export const clearRoomTableHandler: RequestHandler = async (req, res) => {
  await clearRoomTable(req.user!, (req.query as { room: string }).room);
  res.status(204).end();
};

/** GET /room/{slug}/roll: the room's history for its participants, newest first, cursor-paged. */
export function historyHandler(deps: AppDeps): RequestHandler {
  return async (req, res) => {
    const { before, limit } = req.query as unknown as { before?: string; limit: number };
    const me = req.user!.id;
    const room = await requireRoomBySlug(req.params.slug as string);
    if (!isParticipant(room, me)) throw new ForbiddenError(`Join the room first (POST /api/1.0/room/${room.slug}/participant) to see its rolls.`);
    // A cursor that is not (or no longer) a roll of this room has nothing after it: the table was cleared.
    // One the caller may not see (a whisper for someone else) is no cursor either: it confirms nothing.
    const beforeId = before ? await visibleRollIdInRoom(before, room.id, me) : null;
    const ids = before && beforeId === null ? [] : await visibleRollIdsInRoom(room.id, me, beforeId, limit);
    const pageIds = ids.slice(0, limit);
    const rolls = await loadRolls(pageIds);
    const data = rolls.map((r) => presentRoll(r, me));
    const nextBefore = ids.length > limit ? (rolls[rolls.length - 1]?.uuid ?? null) : null;
    res.json(cursorPage('roll', data, { path: listPath(req, deps.config), limit, nextBefore }));
  };
}
