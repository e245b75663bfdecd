/**
 * The mutable state of one roll: the values made so far and the units operators select.
 *
 * A unit is what a selector picks and what a total counts: one die, or a d100 pair (a `d10x` and the `d10`
 * after it), which is rerolled, dropped and exploded as one die showing 1..100.
 *
 * Shapes are kept flat (no per-unit arrays) because a roll creates many units and this is the hot path.
 */
import { VALUE_COST, WorkBudget } from './budget';
import { DiceError } from './errors';
import { pairValue, type PreparedDie } from './faces';
import type { DieRequest, Origin, RolledValue, Rng } from './types';

/** Values a roll may hold after rerolls and explosions (request dice count too). */
export const MAX_ROLL_VALUES = 1000;

/** One request die as the engine sees it; shared by everything rolled for it (rerolls, explosions). */
export interface Part {
  die: PreparedDie;
  req: DieRequest;
  dieIndex: number;
  /** the type as written in values: lower case */
  type: string;
}

/**
 * A unit is itself the Part of its (first) die, which saves an object per die on the hot path; for a d100
 * that first die is the tens die and `b` the units die.
 */
export interface Unit extends Part {
  /** the units die of a d100 pair, or null */
  b: Part | null;
  /** indices into values of the current values of the first die and of b */
  slotA: number;
  slotB: number;
  /** what the unit counts as, or null when a face is not a number (such units are never selected) */
  num: number | null;
  kept: boolean;
  /** scratch marks for one operation (see operators.ts): selected, already exploded */
  mark: number;
  spent: number;
  /** slots of the throws a compounding die (`!!`) added into this unit, or null */
  extra: number[] | null;
  /** 1 for a penetrating die (`!p`): it counts one less than it shows */
  pen: number;
}

export function newUnit(a: Part, b: Part | null): Unit {
  return {
    die: a.die,
    req: a.req,
    dieIndex: a.dieIndex,
    type: a.type,
    b,
    slotA: -1,
    slotB: -1,
    num: null,
    kept: true,
    mark: 0,
    spent: 0,
    extra: null,
    pen: 0,
  };
}

export class RollState {
  readonly values: RolledValue[] = [];

  /** every loop over dice charges it first (budget.ts) */
  readonly budget: WorkBudget;

  constructor(
    private readonly rng: Rng,
    budget?: WorkBudget,
  ) {
    this.budget = budget ?? new WorkBudget();
  }

  /** Adds a value showing face index `face` (0-based) of `part`; returns its slot. */
  addValue(part: Part, face: number, origin: Origin, isUser: boolean): number {
    if (this.values.length >= MAX_ROLL_VALUES) {
      throw new DiceError(
        'too_many_dice',
        'operator',
        `This roll reached ${MAX_ROLL_VALUES} dice with its rerolls and explosions; roll fewer dice or loosen the operators.`,
      );
    }
    this.budget.spend(VALUE_COST);
    const die = part.die;
    const req = part.req;
    this.values.push({
      dieIndex: part.dieIndex,
      type: part.type,
      theme: req.theme,
      value: face + 1,
      valueToDisplay: die.def.faces[face]!,
      numericValue: die.numbers[face]!,
      isDropped: false,
      isSuccess: false,
      isFailure: false,
      isCompounded: false,
      isPenetrated: false,
      isUserValue: isUser,
      isHidden: req.isHidden === true,
      origin,
      label: req.label,
      meta: req.meta,
    });
    return this.values.length - 1;
  }

  /** A fresh face index (0-based) for a die. */
  draw(die: PreparedDie): number {
    return this.rng.int(die.size);
  }

  /** After the faces of a unit change: its number, and for a pair what each die adds to the total. */
  settle(unit: Unit): void {
    const va = this.values[unit.slotA]!;
    const pen = unit.pen;
    if (unit.b === null) {
      const raw = unit.die.numbers[va.value - 1]!;
      va.numericValue = raw === null ? null : raw - pen;
      let num = va.numericValue;
      // A compounding die counts every throw added into it.
      if (unit.extra !== null)
        for (const s of unit.extra) num = num === null || this.values[s]!.numericValue === null ? null : num + this.values[s]!.numericValue!;
      unit.num = num;
      return;
    }
    const vb = this.values[unit.slotB]!;
    const t = unit.die.numbers[va.value - 1]!;
    const u = unit.b.die.numbers[vb.value - 1]!;
    if (t === null || u === null) {
      unit.num = null;
      return;
    }
    unit.num = pairValue(t, u) - pen;
    // The units die adds its last digit and the tens die the rest, so 00 + 10 reads 100 + 0.
    vb.numericValue = ((u % 10) + 10) % 10;
    va.numericValue = unit.num - vb.numericValue;
  }

  /**
   * Adds one more throw into a compounding unit (`!!`; `penetrate`: `!!p`, the throw counts one less);
   * answers the face's own number, which the compare point is checked against.
   */
  compound(unit: Unit, penetrate: boolean): number | null {
    const face = this.draw(unit.die);
    const slot = this.addValue(unit, face, 'explosion', false);
    const v = this.values[slot]!;
    v.isCompounded = true;
    this.values[unit.slotA]!.isCompounded = true;
    const raw = v.numericValue;
    if (penetrate && raw !== null) {
      v.numericValue = raw - 1;
      v.isPenetrated = true;
    }
    (unit.extra ??= []).push(slot);
    this.settle(unit);
    return raw;
  }

  /** Rolls a unit's dice for the first time or again (origin says which). */
  rollUnit(unit: Unit, origin: Origin): void {
    unit.slotA = this.addValue(unit, this.draw(unit.die), origin, false);
    if (unit.b !== null) unit.slotB = this.addValue(unit.b, this.draw(unit.b.die), origin, false);
    this.settle(unit);
  }

  /** Rerolls a unit: its current values are dropped and new ones (origin `reroll`) take their place. */
  reroll(unit: Unit): void {
    this.markDropped(unit);
    unit.extra = null;
    this.rollUnit(unit, 'reroll');
  }

  /** A new unit of the same dice, freshly rolled (explosions, and d20's `ra`). */
  spawn(from: Unit, origin: Origin, pen = 0): Unit {
    const unit = newUnit(from, from.b);
    unit.pen = pen;
    this.rollUnit(unit, origin);
    if (pen > 0) {
      this.values[unit.slotA]!.isPenetrated = true;
      if (unit.b !== null) this.values[unit.slotB]!.isPenetrated = true;
    }
    return unit;
  }

  drop(unit: Unit): void {
    unit.kept = false;
    this.markDropped(unit);
  }

  private markDropped(unit: Unit): void {
    this.values[unit.slotA]!.isDropped = true;
    if (unit.b !== null) this.values[unit.slotB]!.isDropped = true;
    if (unit.extra !== null) for (const s of unit.extra) this.values[s]!.isDropped = true;
  }

  /** Sets a unit's faces in place (d20's `mi`/`ma` change the die, they do not roll another). */
  force(unit: Unit, faceA: number, faceB: number): void {
    setFace(this.values[unit.slotA]!, unit.die, faceA);
    if (unit.b !== null) setFace(this.values[unit.slotB]!, unit.b.die, faceB);
    this.settle(unit);
  }
}

function setFace(v: RolledValue, die: PreparedDie, face: number): void {
  v.value = face + 1;
  v.valueToDisplay = die.def.faces[face]!;
  v.numericValue = die.numbers[face]!;
}
