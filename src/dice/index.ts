/**
 * The dice engine: a roll request -> dice values, flags, total and a d20-syntax equation. Pure: no I/O, no
 * database, no HTTP. Full rules and examples: docs/dice.md.
 *
 * CONTRACT for the roll endpoint (POST /roll)
 *
 *   rollDice(dice, operator, resolve, rng?, budget?) -> RollResult
 *     dice      DieRequest[] in camelCase (`value_to_display` -> valueToDisplay, `is_hidden` -> isHidden).
 *               `value` is dddice's number of a face (numbering.ts): its 1-based position, but a d10x's
 *               tens digit (10 for 00) and a fate die's -1, 0 or 1; a numeric string is that number.
 *               1..100 entries; `type` is a die id of the die's theme (case-insensitive) or "mod".
 *     operator  the request's `operator` object as received (or undefined): d20's keys k p rr ro ra e mi ma,
 *               the SDK's k d * / round (`*` and `/` also as the SDK's {factor: [dice indices]}: dieScale.ts), and rpg-dice-roller's ! !! !p !!p u (compare point or "" for the
 *               default) and `success` / `failure` (compare points that make the dice a pool); `groups`:
 *               roll groups [{parts: [[dice indices, mods too], ...], k?, p?, d?, success?, failure?, s?}]
 *               (groups.ts). An operand maps to one list of dice indices or to a list of such lists.
 *     resolve   (themeId, dieType) -> DieDefinition | null. dieType is lower case. Return the theme's die
 *               (its physical type, notation and `values` as faces); return null when the theme has no
 *               such die (the engine then throws a 422). To read back equations written for custom dice,
 *               also match a die's notation (lower case) when no id matches (`4dF` asks for "df").
 *               STANDARD_DICE / standardDefinition() give the faces of the standard dice for themes without
 *               `values`; builtinDefinition() also fudge dice (df, df.1) and any dN, 2 <= N <= 1,000, which
 *               the built-in theme rolls without listing them.
 *     rng       tests only; defaults to a crypto-backed source.
 *
 *   rollEquation(equation, theme, resolve, rng?, budget?) -> RollResult
 *     for {"equation": "4d6kh3+2", "theme": "x"}: parseEquation, every die in `theme`, then rollDice;
 *     every refusal's path is then `equation`, the one field that was sent.
 *     result.operator is the operator object the equation stands for (frozen: it is shared by a parse
 *     cache; copy it before changing it).
 *
 *   parseEquation(equation) -> { dice: {type, value?}[], operator? }    (contract in parse.ts)
 *     dice are expanded one entry per die ("4d6" is four {type: "d6"}, "1d100" is d10x + d10, "+2" is
 *     {type: "mod", value: 2}); add the theme to each and call rollDice with the operator.
 *
 *   RollResult
 *     values    request dice first, values[i] for dice[i] (a d100 is its two dice), then rerolls and
 *               explosions in the order they happened. `value` is the face's 1-based position (what the
 *               store keeps); the wire's `value` is wireValue(type, value, valueToDisplay), dddice's
 *               number of that face. Map to the wire as: type, value, value_to_display,
 *               is_hidden, is_user_value, is_dropped, is_success, is_failure, is_compounded, is_penetrated
 *               (+ label/meta if you keep them). `dieIndex` and `origin` say where a value came from;
 *               `numericValue` is what it added to the total (a pool die: +1, -1 or 0).
 *               A value's roll group part is not on it: `groupPartsOf(groupsOf(operator))` (tally.ts) maps
 *               dieIndex -> [group, part], the wire's `group` and `group_part` (null outside groups).
 *     total     -> total_value (a pool: successes minus failures, plus what is not in the pool; a counting
 *               group part +1, -1 or 0)
 *     successCount, failureCount -> success_count, failure_count (null when no compare point)
 *     equation  -> equation
 *     operator  -> operator (the object as given, or as parsed; null when none)
 *   Modifiers come back as values of type "mod" whose value, valueToDisplay and numericValue are the number
 *   (value is the modifier rather than null, so the wire echoes what the client sent).
 *   A d100's two values: the d10x's numericValue is the tens (100 for 00 with 0), the d10's the units.
 *
 * LIMITS: 100 request dice (mods count, a d100 is two), 1,000 values after rerolls and explosions,
 * 500-character equations, 10,000 faces per die, 20 selectors per operator on the same dice, 300-character
 * operands, and a work budget per roll (budget.ts; `budget`, a WorkBudget, is for tests and benchmarks).
 *
 * ORDER: imports run one way, from the stages down to the ground; no module imports one that imports it
 * back, type imports included (.dependency-cruiser.cjs, rule no-circular-dice):
 *
 *   index.ts                 rollEquation: parse, then rollDice; the parse cache
 *   engine.ts                rollDice: plan -> run -> tally, for one request
 *   tally   hidden.ts -> hiddenGroups.ts -> tally.ts (a viewer's total and equation; the totals);
 *           shape.ts -> equation.ts (the written equation)
 *   run     groups.ts -> outcomes.ts -> operators.ts -> state.ts (rerolls, explosions, pools, groups)
 *   plan    plan.ts -> groupPlan.ts, dieScale.ts (the operator object checked and compiled)
 *   parse   parse.ts -> parseRequest.ts (an equation string -> dice and operator object)
 *   words   planTypes.ts -> selectors.ts, scaling.ts (codes, steps, sets, groups, layout; selectors and
 *           their cost; `*`, `/`, round, modifiers); numbering.ts -> faces.ts (dice and their faces)
 *   ground  budget.ts -> errors.ts (work and size limits, refusals), random.ts -> types.ts
 *
 * A module may import any module on a line below its own, and on its own line only the modules it is
 * drawn before with "->". Parsing needs no plan: the parser writes the operator object, and the plan
 * reads it; both speak planTypes.ts's codes.
 *
 * ERRORS: every refusal is a DiceError {code, status (400 | 422), message, details: [{path, message}]},
 * with paths like `dice[3].value`, `dice[0].value_to_display`, `operator.k.h1[2]`, `equation`; messages are
 * written for people. Nothing else is thrown for bad input.
 */
export { DiceError, type DiceErrorCode, type DiceErrorDetail } from './errors';
export { STANDARD_DICE, standardDefinition, builtinDefinition, faceNumber, pairValue, MAX_GENERIC_SIDES } from './faces';
export { rollDice } from './engine';
export { WorkBudget, WORK_BUDGET, MAX_REQUEST_DICE, MAX_OPERAND_LENGTH, MAX_SELECTORS_PER_OPERATOR } from './budget';
export { MAX_ROLL_VALUES } from './state';
export { parseEquation, MAX_EQUATION_LENGTH, type EquationDie, type ParsedEquation } from './parse';
export { groupPartsOf, groupsOf } from './tally';
export { wireValue } from './numbering';
export { CryptoRng, defaultRng } from './random';
export type { DieDefinition, DieRequest, Face, GroupInput, OperatorInput, Origin, Resolve, Rng, RolledValue, RollResult } from './types';

import { WorkBudget } from './budget';
import { rollDice } from './engine';
import { DiceError } from './errors';
import { parseEquation, type ParsedEquation } from './parse';
import { markImmutable } from './plan';
import { defaultRng } from './random';
import type { DieRequest, Resolve, Rng, RollResult } from './types';

// Integrations send the same few equations over and over; parsing each once saves most of a short roll.
// Entries are frozen and only read here; the cache is cleared when full rather than tracking recency.
const parsedCache = new Map<string, ParsedEquation>();
const PARSED_CACHE_SIZE = 1000;

function parseCached(equation: string): ParsedEquation {
  let parsed = parsedCache.get(equation);
  if (parsed === undefined) {
    parsed = deepFreeze(parseEquation(equation));
    if (parsed.operator !== undefined) markImmutable(parsed.operator);
    if (parsedCache.size >= PARSED_CACHE_SIZE) parsedCache.clear();
    parsedCache.set(equation, parsed);
  }
  return parsed;
}

function deepFreeze<T>(o: T): T {
  if (o !== null && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}

/** Rolls an equation with every die from one theme (see the contract above). */
export function rollEquation(equation: string, theme: string, resolve: Resolve, rng: Rng = defaultRng, budget: WorkBudget = new WorkBudget()): RollResult {
  const parsed = parseCached(equation);
  const dice = new Array<DieRequest>(parsed.dice.length);
  for (let i = 0; i < dice.length; i++) {
    const d = parsed.dice[i]!;
    dice[i] = d.value === undefined ? { type: d.type, theme } : { type: d.type, theme, value: d.value };
  }
  try {
    return rollDice(dice, parsed.operator, resolve, rng, budget);
  } catch (e) {
    // Only an equation was sent: its dice and operator are ours, so every refusal points at `equation`.
    if (e instanceof DiceError) throw new DiceError(e.code, 'equation', e.message, e.status);
    throw e;
  }
}
