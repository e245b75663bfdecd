import { asBool, asDate, asDateOrNull, asJson, columns, num, strOrNull, type Row } from '../../db/sql';
import type { UserRecord } from '../../users/store';

/**
 * Rooms and participants as the rooms store returns them: plain records with the models' field names
 * and types (so presenters and policies take them whatever read them). `*Columns` select a table's
 * columns under those names (alias `t`), and `to*` turn a row of either dialect into a record.
 */

/** One die of a dice tray row: a die id of a theme (the dddice SDK's `{dieType, theme}`). */
export interface TrayDie {
  dieType: string;
  theme: string;
}

/** A participant's saved rows of dice, each a one-click roll on the board. */
export type DiceTray = TrayDie[][];

export interface ParticipantRecord {
  id: number;
  roomId: number;
  userId: number;
  username: string;
  color: string;
  position: number;
  diceTray: DiceTray;
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
  /** Every participant's user id, when `participants` lists only some (forRolls.ts). */
  memberUserIds?: ReadonlySet<number>;
}

const PARTICIPANT = ['id', 'roomId', 'userId', 'username', 'color', 'position', 'diceTray', 'createdAt', 'updatedAt'];
const ROOM = ['id', 'slug', 'name', 'isPublic', 'passcode', 'bgFilePath', 'userId', 'createdAt', 'updatedAt', 'deletedAt'];

export const participantColumns = (alias: string, prefix = '') => columns(alias, prefix, PARTICIPANT);
export const roomColumns = (alias: string, prefix = '') => columns(alias, prefix, ROOM);

export function toParticipant(row: Row, prefix = ''): ParticipantRecord {
  return {
    id: num(row[`${prefix}id`]),
    roomId: num(row[`${prefix}roomId`]),
    userId: num(row[`${prefix}userId`]),
    username: row[`${prefix}username`] as string,
    color: row[`${prefix}color`] as string,
    position: num(row[`${prefix}position`]),
    diceTray: trayOf(row[`${prefix}diceTray`]),
    createdAt: asDate(row[`${prefix}createdAt`]),
    updatedAt: asDate(row[`${prefix}updatedAt`]),
  };
}

/** The stored tray (JSON text; null before any was saved) as a tray. */
export function trayOf(value: unknown): DiceTray {
  return asJson<DiceTray>(value) ?? [];
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
