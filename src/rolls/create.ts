import { randomInt, randomUUID } from 'node:crypto';
import {
  builtinDefinition,
  rollDice,
  rollEquation,
  type DieDefinition,
  type DieRequest,
  type Face,
  type OperatorInput,
  type Resolve,
  type Rng,
  type RollResult,
} from '../dice';
import { AppError, NotFoundError, ValidationError, type ErrorDetail } from '../errors';
import { publish } from '../events/bus';
import { SLUG_PATTERN } from '../rooms/codes';
import { DEFAULT_THEME_ID } from '../themes/defaultTheme';
import { findRollableThemeVersions, type RollableTheme } from '../themes/rollable';
import { carriedBytes, carriedTooLargeMessage, MAX_CARRIED_BYTES } from './limits';
import { authorizeRollInRoom } from './policy';
import { loadRollRoomBySlug } from './store/load';
import type { ParticipantRecord, RollRecord, RollValueRecord, RoomRecord, UserRecord, WhisperRecord } from './store/records';
import { insertRollsGuarded, insertRollsInTransaction, type RollToInsert, type RollWritten } from './store/write';
import type { Query } from '../db/sql';
import { drawInLedger, type Draw, type LeafRng } from '../fairness/draws';
import { ensureLedger, roomScope, userScope } from '../fairness/store/ledgers';
import { attachProofs } from '../fairness/proofs';

/** One entry of a roll request's `dice`, in camelCase. */
export interface DieInput {
  type: string;
  theme?: string;
  value?: number | null;
  valueToDisplay?: Face | null;
  label?: string | null;
  isHidden?: boolean;
  meta?: unknown;
}

/** POST /roll, validated (schema.ts): `dice` or `equation` (with its `theme`). */
export interface RollInput {
  dice?: DieInput[];
  equation?: string;
  /** the theme of an equation's dice, and of request dice that name none */
  theme?: string | null;
  operator?: OperatorInput | null;
  label?: string | null;
  externalId?: string | null;
  room?: string | null;
  whisper?: number[] | null;
  direction?: number;
  velocity?: number;
  /** the roller's seed for the fairness draws (docs/fairness.md); null or absent: none was sent */
  clientSeed?: string | null;
}

/** 422: a die names a theme the roller cannot roll with. */
export class UnusableThemeError extends AppError {
  constructor(details: ErrorDetail[]) {
    super(422, 'unknown_theme', details.length === 1 ? details[0]!.message : `${details[0]!.message} (and ${details.length - 1} more)`, details);
  }
}

/** 422: `whisper` names someone who is not a participant of the room. */
export class UnknownParticipantError extends AppError {
  constructor(details: ErrorDetail[]) {
    super(422, 'unknown_participant', details[0]!.message, details);
  }
}

/**
 * Roll dice for `user`: check the room and whisper list, resolve each die in a theme the user may roll
 * with, roll (dice engine) on the fairness ledger's next leaves and write the roll, its values and
 * whispers in the ledger's transaction (src/fairness/draws.ts); announce it after commit. Reads happen
 * before the transaction, so it holds the ledger's lock, the engine and one statement (PostgreSQL).
 * The store writes it in plain SQL (store/write.ts): this is the service's hottest path (docs/performance.md).
 *
 * `external_id` is the caller's label for the roll (many rolls may share one); safe retries are the
 * `Idempotency-Key` header's business (idempotency/), before this runs.
 */
export async function createRoll(user: UserRecord, input: RollInput): Promise<RollRecord> {
  const externalId = input.externalId ?? null;
  const request = rollRequest(input);
  // The two reads do not depend on each other: run them side by side, then judge in a fixed order.
  const [foundRoom, themes] = await Promise.allSettled([
    input.room ? requireRoomRecord(input.room, user.id, input.whisper ?? []) : Promise.resolve(null),
    findRollableThemeVersions(
      user.id,
      request.wanted.map((w) => w.slug),
    ),
  ]);
  const room = settled(foundRoom);
  if (room) authorizeRollInRoom(room, user.id);
  const whispered = whisperedParticipants(room, input.whisper ?? []);
  const usable = usableThemes(request.wanted, settled(themes));
  const ledger = await ensureLedger(room ? roomScope(room.id) : userScope(user.id), room?.id ?? null, room ? null : user.id);
  const clientSeed = input.clientSeed ?? null;

  const now = new Date();
  const roll: RollRecord = {
    id: 0,
    uuid: randomUUID(),
    userId: user.id,
    roomId: room?.id ?? null,
    direction: input.direction ?? randomDirection(),
    velocity: input.velocity ?? randomVelocity(),
    equation: '',
    totalValue: 0,
    operator: null,
    label: input.label ?? null,
    externalId,
    isWhispered: whispered.length > 0,
    ledgerId: ledger.id,
    clientSeed,
    ledgerUuid: ledger.uuid,
    createdAt: now,
    updatedAt: now,
  };
  const whispers: WhisperRecord[] = whispered.map((p) => ({ rollId: 0, participantId: p.id, userId: p.userId, participant: p }));

  // The engine runs in the ledger's transaction, on the ledger's next leaves (src/fairness/draws.ts);
  // a refusal there (a DiceError, too many values) claims nothing and is this request's answer.
  const { result: drawn } = await drawInLedger(ledger, {
    clientSeed: clientSeed ?? '',
    run: (rng: LeafRng) => {
      const result = runEngine(request, usable, input.operator, rng);
      refuseOversizedValues(result);
      // Stamped when drawn: every batch its leaves come from was published before this time.
      const drawnAt = new Date();
      roll.createdAt = drawnAt;
      roll.updatedAt = drawnAt;
      roll.equation = result.equation;
      roll.totalValue = result.total;
      roll.operator = (result.operator as Record<string, unknown> | null) ?? null;
      const values = withDraws(
        result.values.map((v, position) => valueRecord(position, v, drawnAt)),
        rng.draws,
        ledger.id,
      );
      return { roll, values, whispers, announce: room ? { slug: room.slug } : undefined, written: null as RollWritten | null };
    },
    writeAll: writeRolls,
    writeAllGuarded: writeRollsGuarded,
    rows: (drawn) => drawn.values.length,
  });
  const { written, values } = drawn;
  await attachProofs(values);

  // Everything the presenter needs is at hand: no read-back, here or (same instance) in the fan-out.
  roll.user = user;
  roll.room = room;
  roll.values = values;
  roll.whispers = whispers;
  publish({
    type: 'roll.created',
    rollId: roll.id,
    roomId: room?.id ?? null,
    slug: room?.slug ?? null,
    loaded: roll,
    outboxId: written?.outboxId ?? null,
    recordedWith: written?.recorded ?? 0,
    userId: user.id,
  });
  return roll;
}

/** The rolls of one ledger group, in its transaction (one statement on PostgreSQL); sets each one's outbox id. */
async function writeRolls(tx: Query, rolls: (RollToInsert & { written: RollWritten | null })[]): Promise<void> {
  const written = await insertRollsInTransaction(tx, rolls);
  rolls.forEach((r, i) => (r.written = written[i]!));
}

/** writeRolls as one statement that also moves the ledger (PostgreSQL); false when the ledger had moved. */
async function writeRollsGuarded(
  query: Query,
  rolls: (RollToInsert & { written: RollWritten | null })[],
  advance: (params: unknown[]) => string,
): Promise<boolean> {
  const written = await insertRollsGuarded(query, rolls, advance);
  if (!written) return false;
  rolls.forEach((r, i) => (r.written = written[i]!));
  return true;
}

/**
 * The leaves the engine drew, in order, onto the values they made: every draw makes one value right
 * away (src/dice/state.ts), so the k-th value neither supplied by the client nor a modifier is the
 * k-th draw. A mismatch would be a bug that breaks every proof: refuse it loudly.
 */
export function withDraws(values: RollValueRecord[], draws: readonly Draw[], ledgerId: number): RollValueRecord[] {
  let k = 0;
  for (const v of values) {
    if (v.isUserValue || v.origin === 'mod') continue;
    const d = draws[k++];
    if (!d) throw new Error('fairness: a drawn value without its draw');
    v.ledgerId = ledgerId;
    v.draw = d.draw;
    v.drawFaces = d.faces;
  }
  if (k !== draws.length) throw new Error(`fairness: ${draws.length} draws for ${k} drawn values`);
  return values;
}

/**
 * Rerolls and explosions copy their die's label and meta into every value they add: the request's own
 * bound (schema.ts) is checked again on what the roll would store and send to every member.
 */
export function refuseOversizedValues(result: { values: readonly { label?: string | null; meta?: unknown }[] }): void {
  const bytes = carriedBytes(result.values);
  if (bytes > MAX_CARRIED_BYTES) throw new ValidationError([{ path: 'dice', message: carriedTooLargeMessage(bytes, true) }]);
}

/** The live room with this slug as the roll embeds it (loadRollRoomBySlug), or a 404 `not_found`. */
async function requireRoomRecord(slug: string, userId: number, whisperIds: number[]): Promise<RoomRecord> {
  const room = SLUG_PATTERN.test(slug) ? await loadRollRoomBySlug(slug, userId, whisperIds) : null;
  if (!room) throw new NotFoundError(`There is no room "${String(slug).slice(0, 64)}".`);
  return room;
}

function settled<T>(result: PromiseSettledResult<T>): T {
  if (result.status === 'rejected') throw result.reason;
  return result.value;
}

/** The participants `whisper` names (participant ids of the room), or a 422 naming those that are not. */
function whisperedParticipants(room: RoomRecord | null, ids: number[]): ParticipantRecord[] {
  if (!ids.length) return [];
  if (!room) throw new ValidationError([{ path: 'whisper', message: 'whisper needs a room: send the room too, and the participant ids of that room.' }]);
  const byId = new Map((room.participants ?? []).map((p) => [p.id, p]));
  const out: ParticipantRecord[] = [];
  const missing: ErrorDetail[] = [];
  const seen = new Set<number>();
  ids.forEach((id, i) => {
    const p = byId.get(id);
    if (!p) missing.push({ path: `whisper[${i}]`, message: `The room "${room.slug}" has no participant ${id}.` });
    else if (!seen.has(id)) {
      seen.add(id);
      out.push(p);
    }
  });
  if (missing.length) throw new UnknownParticipantError(missing);
  return out;
}

interface RollRequest {
  /** the request's dice for the engine, or null for an equation */
  dice: DieRequest[] | null;
  equation: string | null;
  /** the theme of an equation, and of dice that name none */
  theme: string;
  /** the themes the roll needs, each with where the request names it (for errors) */
  wanted: { slug: string; path: string }[];
}

function rollRequest(input: RollInput): RollRequest {
  const theme = input.theme || DEFAULT_THEME_ID;
  if (input.equation !== undefined) return { dice: null, equation: input.equation, theme, wanted: [{ slug: theme, path: 'theme' }] };
  const dice: DieRequest[] = (input.dice ?? []).map((d) => {
    const req: DieRequest = { type: d.type, theme: d.theme || theme };
    if (d.value !== undefined && d.value !== null) req.value = d.value;
    if (d.valueToDisplay !== undefined && d.valueToDisplay !== null) req.valueToDisplay = d.valueToDisplay;
    if (d.isHidden) req.isHidden = true;
    if (d.label !== undefined && d.label !== null) req.label = d.label;
    if (d.meta !== undefined) req.meta = d.meta;
    return req;
  });
  // Modifiers are numbers, not dice of a theme: their theme is not checked.
  const wanted = dice.flatMap((d, i) => (d.type.trim().toLowerCase() === 'mod' ? [] : [{ slug: d.theme, path: `dice[${i}].theme` }]));
  return { dice, equation: null, theme, wanted };
}

/**
 * Runs the dice engine on the themes the user may roll with (see usableThemes). A theme id that maps to
 * another theme (UNKNOWN_THEME: themes/rollable.ts) is rolled under that theme's id, so the values say
 * which theme they were rolled with.
 */
function runEngine(request: RollRequest, themes: Map<string, RollableTheme>, operator: OperatorInput | null | undefined, rng: Rng): RollResult {
  const resolve = resolverFor(themes);
  const rolledAs = (slug: string) => themes.get(slug)?.slug ?? slug;
  if (request.equation !== null) return rollEquation(request.equation, rolledAs(request.theme), resolve, rng);
  const dice = request.dice ?? [];
  const renamed = dice.some((d) => rolledAs(d.theme) !== d.theme) ? dice.map((d) => ({ ...d, theme: rolledAs(d.theme) })) : dice;
  return rollDice(renamed, operator, resolve, rng);
}

/** The themes found, or a 422 naming each theme the roll needs that the user may not roll with. */
export function usableThemes(wanted: { slug: string; path: string }[], themes: Map<string, RollableTheme>): Map<string, RollableTheme> {
  const problems: ErrorDetail[] = [];
  const named = new Set<string>();
  for (const w of wanted) {
    if (themes.has(w.slug) || named.has(w.slug)) continue;
    named.add(w.slug);
    problems.push({
      path: w.path,
      message: `You cannot roll with the theme "${w.slug.slice(0, 100)}": it is not in your dice box (add it there first) and it is not a public theme (such as the built-in "${DEFAULT_THEME_ID}").`,
    });
  }
  if (problems.length) throw new UnusableThemeError(problems);
  return themes;
}

/**
 * A theme's die by id, else by its notation (`4dF` finds the die whose notation is dF); the built-in theme
 * also rolls what builtinDefinition knows (any dN with 2 <= N <= 1,000, fudge dice) when it has no such die.
 */
export function resolverFor(themes: Map<string, RollableTheme>): Resolve {
  return (slug, dieType) => {
    const type = dieType.toLowerCase();
    const theme = themes.get(slug);
    const own = theme?.dice.get(type) ?? (theme ? byNotation(theme.dice).get(type) : undefined);
    if (own) return own;
    return slug === DEFAULT_THEME_ID ? builtinDefinition(type) : null;
  };
}

// A theme version's dice never change: their notation index is built once per dice map.
const notationIndex = new WeakMap<ReadonlyMap<string, DieDefinition | null>, Map<string, DieDefinition>>();

function byNotation(dice: ReadonlyMap<string, DieDefinition | null>): Map<string, DieDefinition> {
  let index = notationIndex.get(dice);
  if (index === undefined) {
    index = new Map();
    for (const def of dice.values()) {
      const key = typeof def?.notation === 'string' ? def.notation.trim().toLowerCase() : '';
      if (def && key !== '' && !index.has(key)) index.set(key, def);
    }
    notationIndex.set(dice, index);
  }
  return index;
}

const INT32_MAX = 2_147_483_647;

export function valueRecord(position: number, v: RollResult['values'][number], now: Date): RollValueRecord {
  return {
    id: 0,
    uuid: randomUUID(),
    rollId: 0,
    position,
    dieIndex: v.dieIndex,
    type: v.type,
    theme: v.theme,
    // A modifier may be a decimal; the integer column then stays empty and numericValue keeps it exactly.
    value: Number.isInteger(v.value) && Math.abs(v.value) <= INT32_MAX ? v.value : null,
    valueToDisplay: v.valueToDisplay,
    numericValue: v.numericValue,
    origin: v.origin,
    label: v.label ?? null,
    meta: v.meta ?? null,
    isHidden: v.isHidden,
    isUserValue: v.isUserValue,
    isDropped: v.isDropped,
    isSuccess: v.isSuccess,
    isFailure: v.isFailure,
    isCompounded: v.isCompounded,
    isPenetrated: v.isPenetrated,
    isVisible: true,
    isCleared: false,
    ledgerId: null,
    draw: null,
    drawFaces: null,
    createdAt: now,
    updatedAt: now,
  };
}

/** Degrees, 0 (inclusive) to 360 (exclusive), in hundredths: where the dice are thrown from. */
export function randomDirection(): number {
  return randomInt(0, 36_000) / 100;
}

/** How hard the dice are thrown when the caller does not say: 0.5 to 1.5, in hundredths. */
export function randomVelocity(): number {
  return randomInt(50, 151) / 100;
}
