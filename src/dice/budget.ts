/**
 * The work one roll may make the engine do, counted rather than timed (the engine has no clock).
 *
 * A unit is one cheap step: a selector tested against one die, one face of a die scanned, one comparison
 * of a sort. Steps that cost more are charged more (a value added: VALUE_COST). Every loop charges what it
 * is about to do before doing it, and a roll past WORK_BUDGET ends with a 400 `too_many_dice` naming the
 * operator that ran out. Charges are nominal (what the work would cost without the engine's caches), so the
 * same request is accepted or refused the same way whatever was rolled before it.
 *
 * Calibration (docs/dice.md, "Work limits"; `npx tsx scripts/bench/dice.ts --limits`): the dearest work per
 * unit found, an explosion ranking its dice with hN/lN on every pass, costs about 12 ns a unit on the 2-core
 * development machine, so the budget ends any roll within about 5 ms of CPU; a chain of 1,000 explosions
 * with 20 selectors on each uses about 90,000 units.
 */
import { DiceError } from './errors';

/** Entries a request's `dice` may hold (modifiers count; a d100 is two). */
export const MAX_REQUEST_DICE = 100;

/** Units of work one roll may use. */
export const WORK_BUDGET = 400_000;

/** What adding one value costs: a draw, an object and its flags, against a few ns for one comparison. */
export const VALUE_COST = 50;

/**
 * What compiling one operand's list of dice costs beyond its length (a list, a path, a step or a merge of
 * selectors): an object form may map thousands of lists, each cheap to read and dear to keep.
 */
export const STEP_COST = 50;

/** Selectors one operator may hold on one set of dice (`kh1kl1` holds two; d20 merges consecutive ones). */
export const MAX_SELECTORS_PER_OPERATOR = 20;

/**
 * Characters an operand may have (`"h1,l1"`, `">=8"`, an operand key such as `{"h1": [0, 1]}`'s): room for
 * MAX_SELECTORS_PER_OPERATOR of the longest selectors (`>=-1000000000,`), so every equation the parser
 * accepts fits, and nothing is split before the length is known.
 */
export const MAX_OPERAND_LENGTH = 300;

export class WorkBudget {
  private left: number;
  /** where the work comes from, for the refusal: the operator running now (`operator.e`) */
  path = 'operator';

  constructor(readonly limit: number = WORK_BUDGET) {
    this.left = limit;
  }

  /** Work done so far (benchmarks and tests report it). */
  get used(): number {
    return this.limit - this.left;
  }

  /** Charges `units` before the work is done. */
  spend(units: number): void {
    this.left -= units;
    if (this.left < 0) {
      throw new DiceError(
        'too_many_dice',
        this.path,
        'This roll asks for more work than one roll may take (too many rerolls, explosions or selectors on too ' +
          'many dice); roll fewer dice or use fewer selectors.',
      );
    }
  }
}
