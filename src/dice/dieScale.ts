/**
 * The object form of `*` and `/`, as the dddice SDK's parseRollEquation writes them: `{"*": {"2": [0, 1]}}`
 * multiplies what dice 0 and 1 add to the total by 2 (`(1d6+3)*2+1d4`: modifiers may be listed too);
 * `{"/": {"2": [0]}}` divides. A die takes at most one factor of each. The scales themselves are read by
 * scaling.ts's dieScalesOf, the one reader the engine's total and a viewer's total share.
 *
 * What the equation must be able to say is checked here: a d100's two dice take the same scale, every die
 * an operator acts on together takes the same scale (`(2d20kh1)*2`), and dice of roll groups take none
 * (`*` and `/` do not stand inside a group's parts).
 */
import { MAX_OPERAND_LENGTH, STEP_COST, type WorkBudget } from './budget';
import { DiceError } from './errors';
import type { Layout, Plan } from './planTypes';
import { plainNumber } from './scaling';

/** Checks one object form of `*` or `/` (the scales are read afterwards by dieScalesOf). */
export function compileDieScale(key: '*' | '/', val: Record<string, unknown>, layout: Layout, path: string, budget: WorkBudget): void {
  const verb = key === '*' ? 'multiplies' : 'divides';
  const n = layout.unitOfDie.length;
  // Per die: which factor (1-based, in the object's order) claimed it.
  const claimedBy = new Uint16Array(n);
  let ordinal = 0;
  for (const factor in val) {
    if (!Object.hasOwn(val, factor)) continue;
    ordinal++;
    if (factor.length > MAX_OPERAND_LENGTH) {
      throw new DiceError('invalid_operator', path, `${path} has a factor of ${factor.length} characters; a factor may be at most ${MAX_OPERAND_LENGTH}.`);
    }
    const opPath = `${path}.${factor}`;
    budget.path = opPath;
    budget.spend(STEP_COST);
    const f = plainNumber(factor, opPath, key === '*' ? 'The multiplier (*)' : 'The divisor (/)');
    if (key === '/' && f === 0) throw new DiceError('invalid_operator', opPath, 'The divisor (/) cannot be 0.');
    const list = val[factor];
    if (!Array.isArray(list) || list.length === 0) {
      throw new DiceError('invalid_operator', opPath, `${opPath} must list the indices of the dice it ${verb}, such as [0, 1].`);
    }
    budget.spend(list.length);
    for (let j = 0; j < list.length; j++) {
      const i: unknown = list[j];
      if (typeof i !== 'number' || !Number.isInteger(i) || i < 0 || i >= n) {
        throw new DiceError('invalid_operator', `${opPath}[${j}]`, `${String(i)} is not the index of a die in this roll (0 to ${n - 1}).`);
      }
      if (claimedBy[i] !== 0 && claimedBy[i] !== ordinal) {
        throw new DiceError('invalid_operator', `${opPath}[${j}]`, `dice[${i}] is listed under two factors of ${key}; a die takes one.`);
      }
      claimedBy[i] = ordinal;
    }
  }
  if (ordinal === 0) throw new DiceError('invalid_operator', path, `${path} maps no factor to dice, as in {"2": [0, 1]}.`);
}

/** Refuses scales the equation could not write (see the header); the plan's dieScales are set. */
export function checkDieScales(plan: Plan, layout: Layout, budget: WorkBudget): void {
  const scales = plan.dieScales;
  if (scales === null) return;
  const { unitOfDie } = layout;
  const n = unitOfDie.length;
  budget.path = 'operator';
  budget.spend(n);
  const alike = (a: number, b: number) => scales.mul[a] === scales.mul[b] && scales.div[a] === scales.div[b];
  const scaled = (i: number) => scales.mul[i] !== 1 || scales.div[i] !== 1;
  const dieOfUnit = new Array<number>(layout.unitCount).fill(-1);
  for (let i = 0; i < n; i++) {
    const u = unitOfDie[i]!;
    if (u < 0) continue;
    if (dieOfUnit[u] === -1) dieOfUnit[u] = i;
    else if (!alike(dieOfUnit[u]!, i)) {
      throw new DiceError('invalid_operator', 'operator', `dice[${dieOfUnit[u]}] and dice[${i}] are one d100: * and / scale both of them or neither.`);
    }
  }
  for (const set of plan.sets) {
    budget.spend(set.length);
    const first = dieOfUnit[set[0]!]!;
    for (const u of set) {
      if (!alike(first, dieOfUnit[u]!)) {
        throw new DiceError(
          'invalid_operator',
          'operator',
          `dice[${first}] and dice[${dieOfUnit[u]}] share an operator but not their * or /: scale every die of an operator alike, as in (2d20kh1)*2.`,
        );
      }
    }
  }
  for (const g of plan.groups) {
    for (const part of g.parts) {
      budget.spend(part.length);
      for (const i of part) {
        if (scaled(i)) {
          throw new DiceError(
            'invalid_operator',
            'operator',
            `dice[${i}] is in a roll group: * and / cannot stand inside a group's parts; put them around the whole roll.`,
          );
        }
      }
    }
  }
}
