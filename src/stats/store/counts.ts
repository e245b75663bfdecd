import { db } from '../../db';
import { asBool, num } from '../../db/sql';
import { valueVisibleTo, visibleTo } from '../../rolls/store/visible';

/**
 * The statistics' one read: how many times each face of each die was thrown, counted by the database
 * (GROUP BY over the rolls' values, never the values loaded one by one), as a viewer may see them.
 * The privacy rule is the presenters' (rolls/policy.ts canSeeRoll, canSeeValue), in its SQL form from
 * the rolls store (rolls/store/visible.ts): a whisper for others and another player's hidden die are
 * not counted. Modifiers are no dice and are never counted.
 */

/** Which values: a room's as `viewerId` sees them, or all of one user's own rolls (in rooms or not). */
export type StatsScope = { roomId: number; viewerId: number } | { userId: number };

export interface StatsFilter {
  /** rolls made at or after */
  since?: Date;
  /** rolls made before */
  until?: Date;
  /** only the rolls of the user with this uuid (room statistics) */
  rollerUuid?: string;
  /** only dice of this type (lower case) */
  type?: string;
}

/** How many values of one die type, theme and face (1-based position) there are, drawn or supplied. */
export interface FaceCount {
  type: string;
  theme: string;
  position: number;
  isUserValue: boolean;
  count: number;
}

/**
 * At most this many (type, theme, face, drawn or supplied) rows: a die has at most 10,000 faces, so this
 * answers a custom 10,000-face die whose every face came both ways; a room that rolled more kinds of
 * dice than this holds is asked to narrow the question by `type` (stats/read.ts).
 */
export const MAX_FACE_ROWS = 20_000;

/** The conditions on `rolls r` and on `roll_values v`, apart: the count of rolls asks the second per roll. */
function conditions(scope: StatsScope, filter: StatsFilter): { rolls: string; values: string; params: unknown[] } {
  const params: unknown[] = [];
  const p = (value: unknown) => `$${params.push(value)}`;
  const rolls: string[] = [];
  const values: string[] = [];
  if ('roomId' in scope) {
    rolls.push(`r.room_id = ${p(scope.roomId)}`);
    const viewer = params.push(integer(scope.viewerId));
    rolls.push(visibleTo(viewer));
    values.push(valueVisibleTo(viewer));
  } else {
    rolls.push(`r.user_id = ${p(integer(scope.userId))}`);
  }
  if (filter.since) rolls.push(`r.created_at >= ${p(filter.since)}`);
  if (filter.until) rolls.push(`r.created_at < ${p(filter.until)}`);
  if (filter.rollerUuid) rolls.push(`r.user_id = (SELECT id FROM users WHERE uuid = ${p(filter.rollerUuid.toLowerCase())})`);
  if (filter.type) values.push(`v.type = ${p(filter.type)}`);
  // A modifier is a number the roller wrote, and its `value` may be empty (a decimal): neither is a die.
  values.push(`v.type <> 'mod'`, 'v.value IS NOT NULL');
  return { rolls: rolls.join(' AND '), values: values.join(' AND '), params };
}

function integer(id: number): number {
  if (!Number.isSafeInteger(id)) throw new Error('ids must be integers');
  return id;
}

/**
 * The face counts in `scope` under `filter` (at most MAX_FACE_ROWS + 1 rows: one more says "too many"),
 * and how many rolls they come from.
 */
export async function countFaces(scope: StatsScope, filter: StatsFilter): Promise<{ faces: FaceCount[]; rolls: number }> {
  const { rolls: onRolls, values: onValues, params } = conditions(scope, filter);
  const query = db().sql.query;
  // Two statements side by side: the counts (one pass over the values, answered from the index of
  // migration 0017), and the rolls that hold at least one counted value (EXISTS stops at the first).
  const [rows, [rolls]] = await Promise.all([
    query<Record<string, unknown>>(
      `SELECT v.type AS "type", v.theme AS "theme", v.value AS "position", v.is_user_value AS "isUserValue", COUNT(*) AS "count"
         FROM rolls r JOIN roll_values v ON v.roll_id = r.id WHERE ${onRolls} AND ${onValues}
        GROUP BY v.type, v.theme, v.value, v.is_user_value LIMIT ${MAX_FACE_ROWS + 1}`,
      params,
    ),
    query<{ rolls: unknown }>(
      `SELECT COUNT(*) AS "rolls" FROM rolls r WHERE ${onRolls} AND EXISTS (SELECT 1 FROM roll_values v WHERE v.roll_id = r.id AND ${onValues})`,
      params,
    ),
  ]);
  return {
    faces: rows.map((r) => ({
      type: String(r.type),
      theme: String(r.theme),
      position: num(r.position),
      isUserValue: asBool(r.isUserValue),
      count: num(r.count),
    })),
    rolls: num(rolls?.rolls ?? 0),
  };
}
