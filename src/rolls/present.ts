import type { ParticipantRecord as Participant, RollRecord as Roll, RollValueRecord as RollValue, WhisperRecord as RollWhisper } from './store/records';
import { canSeeValue, isRoller, rollAudience } from './policy';
import { presentRollParticipant, presentRoomInRoll, roomViewerClass } from '../rooms/present';
import type { Face, Roll as PresentedRollType, RollValue as PresentedValue } from '../client/types';
import { ts } from '../http/time';
import { presentUser } from '../users/present';
import { hasComparePoint, poolCounts, viewerEquation, viewerTotal } from '../dice/hidden';
import { groupPartsOf, groupsOf } from '../dice/tally';
import { wireValue } from '../dice/numbering';

/**
 * A roll as one viewer may see it (docs/spec.md §2.6 and 2.7): the one presenter behind REST and realtime, so
 * both redact alike. Pure: no I/O. The roll must be loaded as loadRolls() loads it (user, room with owner
 * and participants, values, whispers with their participants) and must be visible to the viewer
 * (policy.ts canSeeRoll): this function redacts dice, it does not decide who sees the roll.
 *
 * Redaction: a die with is_hidden shows `value` and `value_to_display` as null to everyone but its
 * roller; for them `total_value` counts only the dice they see, then applies the roll's `*`, `/` and
 * `round` as the engine does, and `equation` leaves out hidden modifiers (the numbers written in it).
 *
 * Contract relied on by the realtime fan-out (one presentation per class of viewer): the output depends on
 * the viewer only through (a) whether they are the roller and (b) whether they are the room's owner, a
 * participant or neither (rooms/present.ts roomViewerKind: the embedded room's passcode, participants
 * and background): rollViewerClass() below. Keep them in step.
 */
export function presentRoll(roll: Roll, viewerUserId: number | null | undefined): PresentedRollType {
  if (!roll.user || roll.values === undefined) throw new Error('presentRoll needs the roll loaded with its user and values');
  const values = sortedValues(roll.values);
  const seesAll = isRoller(roll, viewerUserId) || values.every((v) => !v.isHidden);
  return {
    uuid: roll.uuid,
    direction: roll.direction,
    velocity: roll.velocity,
    user: presentUser(roll.user),
    room: roll.room ? presentRoomInRoll(roll.room, viewerUserId, involvedUserIds(roll)) : null,
    values: presentValues(roll, values, viewerUserId),
    operator: roll.operator ?? null,
    equation: seesAll ? roll.equation : viewerEquation(roll.equation, roll.operator, values),
    total_value: seesAll ? roll.totalValue : viewerTotal(values, roll.operator),
    ...(hasComparePoint(roll.operator) ? poolCounts(values, seesAll, roll.operator) : {}),
    external_id: roll.externalId ?? null,
    label: roll.label ?? null,
    participants: whisperedParticipants(roll.whispers ?? []).map(presentRollParticipant),
    fairness: roll.ledgerUuid ? { ledger: roll.ledgerUuid, client_seed: roll.clientSeed ?? null } : null,
    created_at: ts(roll.createdAt),
    updated_at: ts(roll.updatedAt),
  };
}

/**
 * The viewer classes of a roll, for presenting it once per class (the realtime fan-out): who may not
 * see it (no class: nothing is sent), its roller, and the others by room class. presentRoll() depends
 * on the viewer only through "is the roller" (hidden dice, total, equation) and the embedded room's
 * class (roomViewerClass); test/realtime/rolls.test.ts compares every viewer's event with what REST
 * answers that viewer.
 */
export function rollViewerClass(roll: Roll): (viewerId: number) => string | undefined {
  const roomClass = roll.room ? roomViewerClass(roll.room) : () => 'none';
  const canSee = rollAudience(roll);
  return (viewer) => {
    if (!canSee(viewer)) return undefined;
    return isRoller(roll, viewer) ? 'roller' : `other:${roomClass(viewer)}`;
  };
}

/** Who a roll involves: its roller and the participants it is whispered to (their users). */
function involvedUserIds(roll: Roll): Set<number> {
  const ids = new Set([roll.userId]);
  for (const w of roll.whispers ?? []) ids.add(w.userId);
  return ids;
}

/** docs/spec.md §2.7, plus `theme`, `label` and `meta` of the die as the roll request gave them. */
function presentValues(roll: Roll, values: RollValue[], viewerUserId: number | null | undefined): PresentedValue[] {
  // Which roll group part a value belongs to is in the (public) operator, so it is shown for hidden dice too.
  const places = groupPartsOf(groupsOf(roll.operator));
  return values.map((v) => presentRollValue(roll, v, viewerUserId, places.get(v.dieIndex)));
}

export function presentRollValue(
  roll: Pick<Roll, 'userId'>,
  value: RollValue,
  viewerUserId: number | null | undefined,
  place?: [number, number],
): PresentedValue {
  const visible = canSeeValue(roll, value, viewerUserId);
  return {
    uuid: value.uuid,
    type: value.type.toLowerCase(),
    theme: value.theme,
    value: visible ? faceIndex(value) : null,
    value_to_display: visible ? displayed(value.valueToDisplay) : null,
    label: value.label ?? null,
    meta: value.meta ?? null,
    is_hidden: Boolean(value.isHidden),
    is_user_value: Boolean(value.isUserValue),
    is_visible: Boolean(value.isVisible),
    is_cleared: Boolean(value.isCleared),
    is_dropped: Boolean(value.isDropped),
    // What a viewer may not see says nothing about its face: a hidden die is no success to them.
    is_success: visible && Boolean(value.isSuccess),
    is_failure: visible && Boolean(value.isFailure),
    is_compounded: visible && Boolean(value.isCompounded),
    is_penetrated: visible && Boolean(value.isPenetrated),
    // Which request die a throw belongs to is public, as rerolls and explosions show on the board anyway.
    die_index: value.dieIndex,
    group: place === undefined ? null : place[0],
    group_part: place === undefined ? null : place[1],
    // The secret decides the face: it goes exactly where `value` goes (the same rule, canSeeValue).
    proof: value.proof ? { ...value.proof, secret: visible ? value.proof.secret : null } : null,
    created_at: ts(value.createdAt),
    updated_at: ts(value.updatedAt),
  };
}

function sortedValues(values: RollValue[]): RollValue[] {
  return [...values].sort((a, b) => a.position - b.position);
}

/**
 * A die's `value` in dddice's numbering (src/dice/numbering.ts: a d10x's tens digit, a fate die's -1/0/1,
 * else the face's position, which is what the store keeps); a modifier's is its number (kept exactly in
 * numericValue).
 */
function faceIndex(value: RollValue): number | null {
  if (value.type === 'mod') return value.numericValue ?? value.value;
  return value.value === null ? null : wireValue(value.type, value.value, value.valueToDisplay as Face);
}

/** The face as shown: docs/spec.md §2.7 types it as a string, so numbers become strings; image faces stay objects. */
function displayed(face: unknown): Face | null {
  if (typeof face === 'number') return String(face);
  return (face as Face | undefined) ?? null;
}

function whisperedParticipants(whispers: RollWhisper[]): Participant[] {
  const out: Participant[] = [];
  for (const w of whispers) {
    const p = (w as RollWhisper & { participant?: Participant }).participant;
    if (p) out.push(p);
  }
  return out.sort((a, b) => a.position - b.position || a.id - b.id);
}

export interface CursorPageInfo {
  /** Absolute URL of the list without its query string. */
  path: string;
  limit: number;
  /** uuid to continue after (the last roll of this page), or null on the last page */
  nextBefore: string | null;
  /** query parameters that filter the list, carried into its links */
  filter?: Record<string, string>;
}

/**
 * A cursor-paged list (roll history): `links.next` is a URL clients fetch verbatim, null on the last page.
 * No `last` or `total`: counting a room's history per viewer would cost more than the page.
 */
export function cursorPage<T>(type: string, data: T[], info: CursorPageInfo) {
  const link = (before: string | null) => {
    const params = new URLSearchParams({ ...info.filter, limit: String(info.limit) });
    if (before) params.set('before', before);
    return `${info.path}?${params.toString()}`;
  };
  return {
    type: `${type}[]`,
    data,
    links: { first: link(null), last: null, prev: null, next: info.nextBefore ? link(info.nextBefore) : null },
    meta: { path: info.path, per_page: info.limit, next_cursor: info.nextBefore },
  };
}
