import { asBool, asDate, asDateOrNull, asJson, type Row } from './sql';
// TRANSITIONAL: the users store owns UserRecord; the room and roll records here go to their stores.
import type { UserRecord } from '../users/store';

/**
 * Plain records of the rows the roll paths read with db/sql.ts: the same field names and types as the
 * Sequelize models (src/models), so presenters and policies take either. Each `*_COLUMNS` list selects
 * a table's columns under those names (alias `t` for the table), and each `to*` function turns a row
 * of either dialect into a record.
 */

export interface ParticipantRecord {
  id: number;
  roomId: number;
  userId: number;
  username: string;
  color: string;
  position: number;
  createdAt: Date;
  updatedAt: Date;
  user?: UserRecord;
}

export interface RoomRecord {
  id: number;
  slug: string;
  name: string;
  isPublic: boolean;
  passcode: string | null;
  bgFilePath: string | null;
  userId: number;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
  user?: UserRecord;
  /**
   * The room's participants, in seat order: all of them, or, when `memberUserIds` is set (a room as
   * rolls load it), only those the rolls involve (rollers, whisper recipients).
   */
  participants?: ParticipantRecord[];
  /** Every participant's user id, when `participants` lists only some (commands/rollsLoad.ts). */
  memberUserIds?: ReadonlySet<number>;
}

export interface RollValueRecord {
  id: number;
  uuid: string;
  rollId: number;
  position: number;
  dieIndex: number;
  type: string;
  theme: string;
  value: number | null;
  valueToDisplay: unknown;
  numericValue: number | null;
  origin: string;
  label: string | null;
  meta: unknown;
  isHidden: boolean;
  isUserValue: boolean;
  isVisible: boolean;
  isCleared: boolean;
  isDropped: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface WhisperRecord {
  rollId: number;
  participantId: number;
  userId: number;
  participant?: ParticipantRecord | null;
}

export interface RollRecord {
  id: number;
  uuid: string;
  userId: number;
  roomId: number | null;
  direction: number;
  velocity: number;
  equation: string;
  totalValue: number;
  operator: Record<string, unknown> | null;
  label: string | null;
  externalId: string | null;
  isWhispered: boolean;
  createdAt: Date;
  updatedAt: Date;
  user?: UserRecord;
  room?: RoomRecord | null;
  values?: RollValueRecord[];
  whispers?: WhisperRecord[];
}

/** `t.a AS "a", t.b_c AS "bC"`: the columns of a table under their record names, prefixed. */
export function columns(alias: string, prefix: string, names: string[]): string {
  // Built once per (table, alias, prefix): the roll paths ask for the same few lists on every request.
  let lists = columnLists.get(names);
  if (!lists) columnLists.set(names, (lists = new Map()));
  const key = `${alias}|${prefix}`;
  let list = lists.get(key);
  if (list === undefined) {
    list = names.map((n) => `${alias}.${n.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)} AS "${prefix}${n}"`).join(', ');
    lists.set(key, list);
  }
  return list;
}
const columnLists = new WeakMap<string[], Map<string, string>>();

const PARTICIPANT = ['id', 'roomId', 'userId', 'username', 'color', 'position', 'createdAt', 'updatedAt'];
const ROOM = ['id', 'slug', 'name', 'isPublic', 'passcode', 'bgFilePath', 'userId', 'createdAt', 'updatedAt', 'deletedAt'];
const ROLL = ['id', 'uuid', 'userId', 'roomId', 'direction', 'velocity', 'equation', 'totalValue', 'operator', 'label', 'externalId', 'isWhispered', 'createdAt', 'updatedAt'];
const VALUE = [
  'id', 'uuid', 'rollId', 'position', 'dieIndex', 'type', 'theme', 'value', 'valueToDisplay', 'numericValue', 'origin', 'label', 'meta',
  'isHidden', 'isUserValue', 'isVisible', 'isCleared', 'isDropped', 'createdAt', 'updatedAt',
];

export const participantColumns = (alias: string, prefix = '') => columns(alias, prefix, PARTICIPANT);
export const roomColumns = (alias: string, prefix = '') => columns(alias, prefix, ROOM);
export const rollColumns = (alias: string, prefix = '') => columns(alias, prefix, ROLL);
export const rollValueColumns = (alias: string, prefix = '') => columns(alias, prefix, VALUE);

const num = (v: unknown) => (typeof v === 'number' ? v : Number(v));
const numOrNull = (v: unknown) => (v === null || v === undefined ? null : num(v));
const strOrNull = (v: unknown) => (v === null || v === undefined ? null : String(v));

export function toParticipant(row: Row, prefix = ''): ParticipantRecord {
  return {
    id: num(row[`${prefix}id`]),
    roomId: num(row[`${prefix}roomId`]),
    userId: num(row[`${prefix}userId`]),
    username: row[`${prefix}username`] as string,
    color: row[`${prefix}color`] as string,
    position: num(row[`${prefix}position`]),
    createdAt: asDate(row[`${prefix}createdAt`]),
    updatedAt: asDate(row[`${prefix}updatedAt`]),
  };
}

export function toRoom(row: Row, prefix = ''): RoomRecord {
  return {
    id: num(row[`${prefix}id`]),
    slug: row[`${prefix}slug`] as string,
    name: row[`${prefix}name`] as string,
    isPublic: asBool(row[`${prefix}isPublic`]),
    passcode: strOrNull(row[`${prefix}passcode`]),
    bgFilePath: strOrNull(row[`${prefix}bgFilePath`]),
    userId: num(row[`${prefix}userId`]),
    createdAt: asDate(row[`${prefix}createdAt`]),
    updatedAt: asDate(row[`${prefix}updatedAt`]),
    deletedAt: asDateOrNull(row[`${prefix}deletedAt`]),
  };
}

export function toRoll(row: Row): RollRecord {
  return {
    id: num(row.id),
    uuid: row.uuid as string,
    userId: num(row.userId),
    roomId: numOrNull(row.roomId),
    direction: num(row.direction),
    velocity: num(row.velocity),
    equation: row.equation as string,
    totalValue: num(row.totalValue),
    operator: asJson<Record<string, unknown>>(row.operator),
    label: strOrNull(row.label),
    externalId: strOrNull(row.externalId),
    isWhispered: asBool(row.isWhispered),
    createdAt: asDate(row.createdAt),
    updatedAt: asDate(row.updatedAt),
  };
}

export function toRollValue(row: Row): RollValueRecord {
  return {
    id: num(row.id),
    uuid: row.uuid as string,
    rollId: num(row.rollId),
    position: num(row.position),
    dieIndex: num(row.dieIndex),
    type: row.type as string,
    theme: row.theme as string,
    value: numOrNull(row.value),
    valueToDisplay: asJson(row.valueToDisplay),
    numericValue: numOrNull(row.numericValue),
    origin: row.origin as string,
    label: strOrNull(row.label),
    meta: asJson(row.meta),
    isHidden: asBool(row.isHidden),
    isUserValue: asBool(row.isUserValue),
    isVisible: asBool(row.isVisible),
    isCleared: asBool(row.isCleared),
    isDropped: asBool(row.isDropped),
    createdAt: asDate(row.createdAt),
    updatedAt: asDate(row.updatedAt),
  };
}
