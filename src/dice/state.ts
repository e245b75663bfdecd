/**
 * The mutable state of one roll: the values made so far and the units operators select.
 *
 * A unit is what a selector picks and what a total counts: one die, or a d100 pair (a `d10x` and the `d10`
 * after it), which is rerolled, dropped and exploded as one die showing 1..100.
 */
import { DiceError } from './errors';
import { pairValue, type PreparedDie } from './faces';
import type { DieRequest, Origin, RolledValue, Rng } from './types';

/** Values a roll may hold after rerolls and explosions (request dice count too). */
export const MAX_ROLL_VALUES = 1000;

export interface Unit {
  /** one die, or [tens, units] for a d100 pair */
  dice: PreparedDie[];
  /** the request entries these dice come from (rerolls and explosions copy theme, hidden, label, meta) */
  reqs: DieRequest[];
  /** request indices, parallel to dice */
  dieIndex: number[];
  /** types as written in values, parallel to dice */
  types: string[];
  /** indices into values of the dice's current values, parallel to dice */
  slots: number[];
  /** what the unit counts as, or null when a face is not a number (such dice are never selected) */
  num: number | null;
  kept: boolean;
}

export class RollState {
  readonly values: RolledValue[] = [];

  constructor(private readonly rng: Rng) {}

  /** Adds a value for face index `face` (0-based) of `unit.dice[k]`; returns its slot. */
  addValue(unit: Unit, k: number, face: number, origin: Origin, isUser: boolean): number {
    if (this.values.length >= MAX_ROLL_VALUES) {
      throw new DiceError('too_many_dice', 'operator',
        `This roll reached ${MAX_ROLL_VALUES} dice with its rerolls and explosions; roll fewer dice or loosen the operators.`);
    }
    const die = unit.dice[k]!;
    const req = unit.reqs[k]!;
    const v: RolledValue = {
      dieIndex: unit.dieIndex[k]!,
      type: unit.types[k]!,
      theme: req.theme,
      value: face + 1,
      valueToDisplay: die.def.faces[face]!,
      numericValue: die.numbers[face]!,
      isDropped: false,
      isUserValue: isUser,
      isHidden: req.isHidden === true,
      origin,
      label: req.label,
      meta: req.meta,
    };
    this.values.push(v);
    return this.values.length - 1;
  }

  /** A fresh face index for a die. */
  draw(die: PreparedDie): number {
    return this.rng.int(die.size);
  }

  /** After the faces of a unit change: its number, and for a pair what each die adds to the total. */
  settle(unit: Unit): void {
    if (unit.dice.length === 1) {
      unit.num = this.values[unit.slots[0]!]!.numericValue;
      return;
    }
    const tens = this.values[unit.slots[0]!]!;
    const units = this.values[unit.slots[1]!]!;
    const t = unit.dice[0]!.numbers[tens.value - 1]!;
    const u = unit.dice[1]!.numbers[units.value - 1]!;
    if (t === null || u === null) {
      unit.num = null;
      return;
    }
    unit.num = pairValue(t, u);
    // The units die adds its last digit and the tens die the rest, so 00 + 10 reads 100 + 0.
    units.numericValue = ((u % 10) + 10) % 10;
    tens.numericValue = unit.num - units.numericValue;
  }

  /** Rerolls a unit: its current values are dropped and new ones (origin `reroll`) take their place. */
  reroll(unit: Unit): void {
    for (let k = 0; k < unit.dice.length; k++) {
      this.values[unit.slots[k]!]!.isDropped = true;
      unit.slots[k] = this.addValue(unit, k, this.draw(unit.dice[k]!), 'reroll', false);
    }
    this.settle(unit);
  }

  /** A new unit of the same dice, freshly rolled (explosions, and d20's `ra`). */
  spawn(from: Unit, origin: Origin): Unit {
    const unit: Unit = {
      dice: from.dice, reqs: from.reqs, dieIndex: from.dieIndex, types: from.types,
      slots: new Array<number>(from.dice.length), num: null, kept: true,
    };
    for (let k = 0; k < unit.dice.length; k++) unit.slots[k] = this.addValue(unit, k, this.draw(unit.dice[k]!), origin, false);
    this.settle(unit);
    return unit;
  }

  drop(unit: Unit): void {
    unit.kept = false;
    for (const s of unit.slots) this.values[s]!.isDropped = true;
  }

  /** Sets a unit's faces in place (d20's `mi`/`ma` change the die, they do not roll another). */
  force(unit: Unit, faces: number[]): void {
    for (let k = 0; k < unit.dice.length; k++) {
      const v = this.values[unit.slots[k]!]!;
      const die = unit.dice[k]!;
      v.value = faces[k]! + 1;
      v.valueToDisplay = die.def.faces[faces[k]!]!;
      v.numericValue = die.numbers[faces[k]!]!;
    }
    this.settle(unit);
  }
}
