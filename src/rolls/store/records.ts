import { asBool, asDate, asJson, columns, num, numOrNull, strOrNull, type Row } from '../../db/sql';
import type { ParticipantRecord, RoomRecord } from '../../rooms/store/records';
import type { UserRecord } from '../../users/store';
import type { ProofRecord } from '../../fairness/proofs';

/**
 * Plain records of rolls, their values and whispers, as the rolls store (src/rolls/store/) answers
 * them: the same field names and types as the Sequelize models (src/db/models/Roll.ts, RollValue.ts, RollWhisper.ts). Each
 * `*Columns` list selects a table's columns under those names, and each `to*` function turns a row
 * of either dialect into a record.
 */

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
  /** what the dice engine said of the value (RolledValue): a pool's success or failure, `!!`, `!p` */
  isSuccess: boolean;
  isFailure: boolean;
  isCompounded: boolean;
  isPenetrated: boolean;
  /** the fairness ledger and leaf position this value's draw used, and N; null for values not drawn here */
  ledgerId?: number | null;
  draw?: number | null;
  drawFaces?: number | null;
  /** what verifies the draw (src/fairness/proofs.ts), attached by the loaders; secret shown per viewer */
  proof?: ProofRecord | null;
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
  /** the fairness ledger the roll drew from (null: made before ledgers) and the client's seed */
  ledgerId?: number | null;
  clientSeed?: string | null;
  /** the ledger's uuid, attached by the loaders (the wire's `fairness.ledger`) */
  ledgerUuid?: string | null;
  createdAt: Date;
  updatedAt: Date;
  user?: UserRecord;
  room?: RoomRecord | null;
  values?: RollValueRecord[];
  whispers?: WhisperRecord[];
}

const ROLL = [
  'id',
  'uuid',
  'userId',
  'roomId',
  'direction',
  'velocity',
  'equation',
  'totalValue',
  'operator',
  'label',
  'externalId',
  'isWhispered',
  'ledgerId',
  'clientSeed',
  'createdAt',
  'updatedAt',
];
const VALUE = [
  'id',
  'uuid',
  'rollId',
  'position',
  'dieIndex',
  'type',
  'theme',
  'value',
  'valueToDisplay',
  'numericValue',
  'origin',
  'label',
  'meta',
  'isHidden',
  'isUserValue',
  'isVisible',
  'isCleared',
  'isDropped',
  'isSuccess',
  'isFailure',
  'isCompounded',
  'isPenetrated',
  'ledgerId',
  'draw',
  'drawFaces',
  'createdAt',
  'updatedAt',
];

export const rollColumns = (alias: string, prefix = '') => columns(alias, prefix, ROLL);
export const rollValueColumns = (alias: string, prefix = '') => columns(alias, prefix, VALUE);

/** Columns of roll_values stored as JSON: inside a JSON array they travel as their text, as asJson() reads them. */
const VALUE_JSON_COLUMNS = new Set(['valueToDisplay', 'meta']);
const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const valueArrays = new Map<string, string>();

/**
 * A scalar subquery answering the values of roll `rollAlias` as the text of one JSON array of arrays
 * (VALUE's order), so that a roll and its values come back in one statement (GET /roll/{uuid}: one
 * round trip to the database instead of two; the driver's cost per statement is most of that path's
 * CPU, docs/performance.md). Order is not asked of the aggregate (SQLite's has none): toRollValuesFromJson
 * sorts by position.
 */
export function rollValuesJson(dialect: 'postgres' | 'sqlite', rollAlias: string): string {
  const key = `${dialect}|${rollAlias}`;
  let text = valueArrays.get(key);
  if (text === undefined) {
    const [agg, array] = dialect === 'postgres' ? ['json_agg', 'json_build_array'] : ['json_group_array', 'json_array'];
    const fields = VALUE.map((n) => (VALUE_JSON_COLUMNS.has(n) ? `CAST(jv.${snake(n)} AS TEXT)` : `jv.${snake(n)}`)).join(', ');
    text = `(SELECT CAST(${agg}(${array}(${fields})) AS TEXT) FROM roll_values jv WHERE jv.roll_id = ${rollAlias}.id)`;
    valueArrays.set(key, text);
  }
  return text;
}

/** The values rollValuesJson() answered (null: none), as records in position order. */
export function toRollValuesFromJson(text: unknown): RollValueRecord[] {
  if (text === null || text === undefined) return [];
  const rows = JSON.parse(text as string) as unknown[][];
  const values = rows.map((fields) => {
    const row: Row = {};
    for (let i = 0; i < VALUE.length; i++) row[VALUE[i]!] = fields[i];
    return toRollValue(row);
  });
  return values.sort((a, b) => a.position - b.position);
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
    ledgerId: numOrNull(row.ledgerId),
    clientSeed: strOrNull(row.clientSeed),
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
    isSuccess: asBool(row.isSuccess),
    isFailure: asBool(row.isFailure),
    isCompounded: asBool(row.isCompounded),
    isPenetrated: asBool(row.isPenetrated),
    ledgerId: numOrNull(row.ledgerId),
    draw: numOrNull(row.draw),
    drawFaces: numOrNull(row.drawFaces),
    createdAt: asDate(row.createdAt),
    updatedAt: asDate(row.updatedAt),
  };
}

export type { ParticipantRecord, RoomRecord, UserRecord };
