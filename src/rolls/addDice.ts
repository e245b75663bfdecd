import { DiceError, rollDice, type DieRequest, type Face, type OperatorInput, type RollResult } from '../dice';
import { AppError } from '../errors';
import { DEFAULT_THEME_ID } from '../themes/defaultTheme';
import { findRollableThemeVersions } from '../themes/rollable';
import { refuseOversizedValues, resolverFor, usableThemes, valueRecord, withDraws, type DieInput } from './create';
import { drawInTransaction } from '../fairness/draws';
import { roomScope, userScope } from '../fairness/store/ledgers';
import type { RollsTransaction } from './store/write';
import type { RollRecord, RollValueRecord } from './store/records';

/**
 * PATCH /roll/{uuid} entries without a `uuid` but with a `type` are dice thrown and added to the roll
 * (Pathbuilder 2e adds damage dice to the last roll). They follow the rules of POST /roll: the roller's
 * themes, predetermined values, the dice engine's checks and limits (100 dice in the whole roll), the
 * bounds on labels and meta.
 *
 * The roll becomes the roll its request would have made with the added dice after its own: the dice
 * engine runs on the roll's dice as they fell (each fixed to its face) followed by the new ones, and
 * writes the total and the equation; only the new dice are drawn. So the total, the equation and what
 * viewers who do not see every die get (dice/hidden.ts) stay the engine's, exactly as for any roll.
 * That holds while the roll's operator does not choose, reroll or explode dice (which would decide
 * again over the new dice, or need the old draws): a roll whose operator does more than `*`, `/` and
 * `round` takes no more dice (422 `dice_not_addable`).
 */

/** An added die and where it sits in the request's `dice` (for error paths). */
export interface AddedDie extends DieInput {
  index: number;
}

/** 422: dice cannot be added to this roll. */
export class DiceNotAddableError extends AppError {
  constructor(message: string, path = 'dice') {
    super(422, 'dice_not_addable', message, [{ path, message }]);
  }
}

/** Operator keys that only scale the sum: the dice already thrown keep every decision over them. */
const SCALING_KEYS = new Set(['*', '/', 'round']);

export interface AddedValues {
  values: RollValueRecord[];
  totalValue: number;
  equation: string;
}

/** The values to append to `roll` (loaded with its values, in the roller's transaction) and its new total and equation. */
export async function throwAddedDice(userId: number, roll: RollRecord, added: AddedDie[], now: Date, tx: RollsTransaction): Promise<AddedValues> {
  const operator = roll.operator && Object.keys(roll.operator).length ? roll.operator : null;
  const chooser = operator && Object.keys(operator).find((k) => !SCALING_KEYS.has(k.trim().toLowerCase()));
  if (chooser !== undefined && chooser !== null) {
    throw new DiceNotAddableError(
      `Dice cannot be added to this roll: its operator "${chooser.slice(0, 16)}" decided over its dice as they were; roll the new dice on their own.`,
    );
  }
  const thrown = [...(roll.values ?? [])].sort((a, b) => a.dieIndex - b.dieIndex || a.position - b.position);
  if (thrown.some((v) => v.origin !== 'roll' && v.origin !== 'mod'))
    throw new DiceNotAddableError('Dice cannot be added to this roll: it has rerolled or exploded dice.');

  // Each die fixed to the face it showed (by face rather than by `value`, whose reading differs by die type).
  const fixed: DieRequest[] = thrown.map((v) =>
    v.type === 'mod'
      ? { type: v.type, theme: v.theme, value: v.numericValue ?? v.value ?? 0 }
      : { type: v.type, theme: v.theme, valueToDisplay: v.valueToDisplay as Face },
  );
  const fresh: DieRequest[] = added.map((d) => {
    const req: DieRequest = { type: d.type, theme: d.theme || DEFAULT_THEME_ID };
    if (d.value !== undefined && d.value !== null) req.value = d.value;
    if (d.valueToDisplay !== undefined && d.valueToDisplay !== null) req.valueToDisplay = d.valueToDisplay;
    if (d.isHidden) req.isHidden = true;
    if (d.label !== undefined && d.label !== null) req.label = d.label;
    if (d.meta !== undefined) req.meta = d.meta;
    return req;
  });
  // The themes of the dice already thrown are needed again (their faces); modifiers have none to check.
  const wanted = [
    ...fresh.flatMap((d, j) => (isMod(d) ? [] : [{ slug: d.theme, path: `dice[${added[j]!.index}].theme` }])),
    ...fixed.filter((d) => !isMod(d)).map((d) => ({ slug: d.theme, path: 'dice' })),
  ];
  const themes = usableThemes(wanted, await findRollableThemeVersions(userId, [...new Set(wanted.map((w) => w.slug))]));

  // The new dice draw from the roll's ledger (its next leaves, under the roll's client seed), in this
  // transaction: what a refusal below throws rolls the claim back with everything else.
  const scope = roll.roomId != null ? roomScope(roll.roomId) : userScope(roll.userId);
  const drawn = await drawInTransaction(
    tx,
    { ledgerId: roll.ledgerId ?? null, scope, roomId: roll.roomId, userId: roll.roomId != null ? null : roll.userId },
    roll.clientSeed ?? '',
    (rng) => {
      try {
        return rollDice([...fixed, ...fresh], (operator ?? undefined) as OperatorInput | undefined, resolverFor(themes), rng);
      } catch (e) {
        if (e instanceof DiceError) throw atRequestPaths(e, fixed.length, added);
        throw e;
      }
    },
  );
  const result: RollResult = drawn.result;
  // The dice already shown must count as they did (a d10 added after a lone d10x pairs with it into a
  // d100, as in one request, and the d10x's tens stay what they were): should any count otherwise, refuse.
  const changed = thrown.findIndex((v, i) => result.values[i]!.numericValue !== v.numericValue || result.values[i]!.isDropped !== v.isDropped);
  if (changed !== -1) {
    throw new DiceError('invalid_dice', `dice[${added[0]!.index}].type`, "These dice would change how the roll's own dice count: roll them on their own.");
  }
  const newValues = result.values.slice(thrown.length);
  refuseOversizedValues({ values: [...thrown, ...newValues] });

  let position = thrown.reduce((max, v) => Math.max(max, v.position), -1);
  return {
    values: withDraws(
      newValues.map((v) => ({ ...valueRecord(++position, v, now), rollId: roll.id })),
      drawn.draws,
      drawn.ledgerId,
    ),
    totalValue: result.total,
    equation: result.equation,
  };
}

const isMod = (d: DieRequest) => d.type.trim().toLowerCase() === 'mod';

/** The engine numbered the roll's own dice first: its paths point at the request's entries again. */
function atRequestPaths(e: DiceError, fixedCount: number, added: AddedDie[]): DiceError {
  const path = e.details[0]?.path ?? 'dice';
  const match = /^dice\[(\d+)\](.*)$/.exec(path);
  let mapped = 'dice';
  if (match) {
    const k = Number(match[1]);
    if (k >= fixedCount && added[k - fixedCount]) mapped = `dice[${added[k - fixedCount]!.index}]${match[2]}`;
  }
  return new DiceError(e.code, mapped, e.message, e.status);
}
