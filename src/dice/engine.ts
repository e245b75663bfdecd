/**
 * rollDice: request dice + operator object -> values, total and equation. Pure: the theme lookup is the
 * caller's `resolve`, randomness the `rng`.
 */
import { MAX_REQUEST_DICE, WorkBudget } from './budget';
import { shapeOf } from './shape';
import { writeEquation } from './equation';
import { DiceError } from './errors';
import { faceNumber, facesEqual, prepare, type PreparedDie } from './faces';
import { describeValues, faceOfValue } from './numbering';
import { isPoolGroup, partIds } from './groupPlan';
import { runGroups } from './groups';
import { applyStep } from './operators';
import { explode, markPool, unique } from './outcomes';
import { compilePlan } from './plan';
import { isExplode, type Plan } from './planTypes';
import type { Selector } from './selectors';
import { defaultRng } from './random';
import { applyScaling, plainNumber } from './scaling';
import { newUnit, RollState, type Part, type Unit } from './state';
import { tally } from './tally';
import type { DieDefinition, DieRequest, OperatorInput, Resolve, Rng, RollResult } from './types';

export function rollDice(
  dice: DieRequest[],
  operator: OperatorInput | null | undefined,
  resolve: Resolve,
  rng: Rng = defaultRng,
  budget: WorkBudget = new WorkBudget(),
): RollResult {
  if (!Array.isArray(dice) || dice.length === 0) {
    throw new DiceError('invalid_dice', 'dice', 'A roll needs at least one die.');
  }
  if (dice.length > MAX_REQUEST_DICE) {
    throw new DiceError('too_many_dice', 'dice', `A roll may have at most ${MAX_REQUEST_DICE} dice; this one has ${dice.length}.`);
  }
  const n = dice.length;
  const types = new Array<string>(n);
  let lastRaw: unknown;
  let lastType = '';
  for (let i = 0; i < n; i++) {
    const req = dice[i];
    if (req === null || typeof req !== 'object') {
      throw new DiceError('invalid_dice', `dice[${i}]`, 'Each die must be an object with a type and a theme.');
    }
    // Consecutive dice usually repeat one type string: normalise it once.
    if (req.type !== lastRaw || i === 0) {
      lastType = dieType(req.type, i);
      lastRaw = req.type;
    }
    types[i] = lastType;
  }

  // Everything about the request is checked before the first draw: a refused roll draws nothing.
  const dies = new DieCache(resolve);
  const units: Unit[] = [];
  const unitOfDie = new Array<number>(n);
  let presets: (number | null)[] | null = null; // only when some die carries a predetermined face
  let modValues: number[] | null = null;
  for (let i = 0; i < n; i++) {
    const req = dice[i]!;
    const type = types[i]!;
    if (type === 'mod') {
      unitOfDie[i] = -1;
      (modValues ??= new Array<number>(n))[i] = modValue(req, i);
      continue;
    }
    let b: Part | null = null;
    // A d10x directly followed by a d10 is one d100.
    if (type === 'd10x' && i + 1 < n && types[i + 1] === 'd10') {
      b = { die: dies.get(dice[i + 1]!, 'd10', i + 1), req: dice[i + 1]!, dieIndex: i + 1, type: 'd10' };
    }
    const unit = newUnit({ die: dies.get(req, type, i), req, dieIndex: i, type }, b);
    unitOfDie[i] = units.length;
    if (hasPreset(req)) (presets ??= new Array<number | null>(n).fill(null))[i] = presetFace(unit.die, type, req, i, budget);
    if (b !== null) {
      unitOfDie[i + 1] = units.length;
      if (hasPreset(b.req)) (presets ??= new Array<number | null>(n).fill(null))[i + 1] = presetFace(b.die, 'd10', b.req, i + 1, budget);
      i++;
    }
    units.push(unit);
  }
  const plan = compilePlan(operator, { unitOfDie, unitCount: units.length }, budget);

  const state = new RollState(rng, budget);
  for (let i = 0; i < n; i++) {
    if (unitOfDie[i] === -1) {
      addMod(state, dice[i]!, i, modValues![i]!);
      continue;
    }
    const unit = units[unitOfDie[i]!]!;
    const presetA = presets === null ? null : presets[i]!;
    unit.slotA = state.addValue(unit, presetA ?? state.draw(unit.die), 'roll', presetA !== null);
    if (unit.b !== null) {
      i++;
      const presetB = presets === null ? null : presets[i]!;
      unit.slotB = state.addValue(unit.b, presetB ?? state.draw(unit.b.die), 'roll', presetB !== null);
    }
    state.settle(unit);
  }

  let counts: [number, number] | null = null;
  if (plan !== null) {
    const sets = plan.sets.map((s) => s.map((u) => units[u]!));
    for (const step of plan.steps) {
      if (isExplode(step.code)) explode(state, sets[step.set]!, step);
      else if (step.code === 'u') unique(state, sets[step.set]!, step);
      // A compare point is counted once every operator ran (countPools); `s` only says how to show the dice.
      else if (step.code !== 'success' && step.code !== 'failure' && step.code !== 's') applyStep(state, sets[step.set]!, step);
    }
    counts = countPools(state, sets, plan);
    if (plan.groups.length > 0) {
      const allUnits = (): Unit[] => {
        const all = new Set<Unit>(units);
        for (const s of sets) for (const u of s) all.add(u);
        return [...all];
      };
      const groupCounts = runGroups(state, plan.groups, allUnits, n);
      if (groupCounts !== null) counts = counts === null ? groupCounts : [counts[0] + groupCounts[0], counts[1] + groupCounts[1]];
    }
  }

  // Counted from the values once everything ran: a group may drop a part after its dice were counted.
  const sum = tally(state.values, poolPartsOfPlan(plan, n), true, plan?.dieScales ?? null);
  return {
    values: state.values,
    total: plan === null ? sum.sum : applyScaling(sum.sum, plan),
    successCount: counts === null ? null : sum.successes,
    failureCount: counts === null ? null : sum.failures,
    equation: writeEquation(shapeOf(units, state, plan, dice, unitOfDie)),
    operator: operator === undefined || operator === null ? null : operator,
  };
}

/** Marks every pool (a set with a compare point) once all operators ran; null when there is none. */
function countPools(state: RollState, sets: Unit[][], plan: Plan): [number, number] | null {
  // One pass over the steps (a plan may hold many sets and steps): each set's compare points, in order.
  let points: { success: Selector[]; failure: Selector[]; path: string }[] | null = null;
  for (const step of plan.steps) {
    if (step.code !== 'success' && step.code !== 'failure') continue;
    points ??= new Array(sets.length);
    const p = (points[step.set] ??= { success: [], failure: [], path: step.path });
    (step.code === 'success' ? p.success : p.failure).push(...step.sels);
  }
  if (points === null) return null;
  let counts: [number, number] | null = null;
  for (let id = 0; id < sets.length; id++) {
    const p = points[id];
    if (p === undefined) continue;
    state.budget.path = p.path;
    const [s, f] = markPool(state, sets[id]!, p.success, p.failure);
    counts = counts === null ? [s, f] : [counts[0] + s, counts[1] + f];
  }
  return counts;
}

function dieType(type: unknown, i: number): string {
  const t = typeof type === 'string' ? type.trim().toLowerCase() : '';
  if (t === '') throw new DiceError('invalid_dice', `dice[${i}].type`, 'Each die needs a type, such as "d20" or "mod".');
  return t;
}

/** Resolves dice through the caller, once per run of dice of the same theme and type. */
class DieCache {
  private theme: string | null = null;
  private type = '';
  private die: PreparedDie | null = null;

  constructor(private readonly resolve: Resolve) {}

  get(req: DieRequest, type: string, i: number): PreparedDie {
    if (this.die !== null && req.theme === this.theme && type === this.type) return this.die;
    if (typeof req.theme !== 'string' || req.theme === '') {
      throw new DiceError('invalid_dice', `dice[${i}].theme`, 'Each die needs the id of its theme.');
    }
    const def: DieDefinition | null = this.resolve(req.theme, type);
    if (def === null || def === undefined) {
      throw new DiceError('unknown_die', `dice[${i}].type`, `The theme "${req.theme}" has no die "${type}".`, 422);
    }
    this.die = prepare(def, `dice[${i}].type`);
    this.theme = req.theme;
    this.type = type;
    return this.die;
  }
}

function hasPreset(req: DieRequest): boolean {
  return (req.value !== undefined && req.value !== null) || (req.valueToDisplay !== undefined && req.valueToDisplay !== null);
}

/** A modifier's number: `value` (or a numeric `value_to_display`) is what it adds; it is never drawn. */
function modValue(req: DieRequest, i: number): number {
  if (req.value !== undefined && req.value !== null) {
    const n = modNumber(req.value, `dice[${i}].value`);
    if (req.valueToDisplay !== undefined && req.valueToDisplay !== null && !facesEqual(n, req.valueToDisplay)) {
      throw new DiceError(
        'invalid_dice',
        `dice[${i}].value_to_display`,
        `This modifier's value_to_display (${show(req.valueToDisplay)}) differs from its value (${n}).`,
      );
    }
    return n;
  }
  if (req.valueToDisplay !== undefined && req.valueToDisplay !== null) {
    return modNumber(req.valueToDisplay, `dice[${i}].value_to_display`);
  }
  throw new DiceError('invalid_dice', `dice[${i}].value`, 'A modifier needs its number in value, such as {"type": "mod", "value": 2}.');
}

function addMod(state: RollState, req: DieRequest, i: number, n: number): void {
  state.values.push({
    // A mod is not drawn from a theme, so it may come without one.
    dieIndex: i,
    type: 'mod',
    theme: typeof req.theme === 'string' ? req.theme : '',
    value: n,
    valueToDisplay: n,
    numericValue: n,
    isDropped: false,
    isSuccess: false,
    isFailure: false,
    isCompounded: false,
    isPenetrated: false,
    isUserValue: false,
    isHidden: req.isHidden === true,
    origin: 'mod',
    label: req.label,
    meta: req.meta,
  });
}

function modNumber(v: unknown, path: string): number {
  try {
    return plainNumber(typeof v === 'object' ? NaN : v, path, 'A modifier');
  } catch (e) {
    throw new DiceError('invalid_dice', path, (e as DiceError).message);
  }
}

/**
 * The face index (0-based) a request fixes, or null to draw. `value` is the die's dddice number
 * (numbering.ts: a face's position, a d10x's tens digit, a fate die's -1/0/1; a numeric string is that
 * number); `value_to_display` names a face (numbers match numeric strings, images match by src); with
 * both they must agree.
 */
function presetFace(die: PreparedDie, type: string, req: DieRequest, i: number, budget: WorkBudget): number | null {
  const hasValue = req.value !== undefined && req.value !== null;
  const hasFace = req.valueToDisplay !== undefined && req.valueToDisplay !== null;
  if (!hasValue && !hasFace) return null;
  const faces = die.def.faces;
  if (hasValue) {
    const raw = req.value as unknown;
    const v = typeof raw === 'string' ? faceNumber(raw) : typeof raw === 'number' ? raw : null;
    const f = v === null ? -1 : faceOfValue(die, type, v, budget);
    if (f < 0) {
      throw new DiceError('invalid_dice', `dice[${i}].value`, `${describeValues(die, type)}; ${JSON.stringify(raw) ?? String(raw)} is not.`);
    }
    if (hasFace && !facesEqual(faces[f]!, req.valueToDisplay)) {
      throw new DiceError('invalid_dice', `dice[${i}].value_to_display`, `The ${die.def.id} value ${v} is ${show(faces[f])}, not ${show(req.valueToDisplay)}.`);
    }
    return f;
  }
  for (let f = 0; f < faces.length; f++) if (facesEqual(faces[f]!, req.valueToDisplay)) return f;
  throw new DiceError('invalid_dice', `dice[${i}].value_to_display`, `${show(req.valueToDisplay)} is not a face of ${die.def.id}.`);
}

function show(face: unknown): string {
  if (face !== null && typeof face === 'object' && typeof (face as { src?: unknown }).src === 'string') {
    return `the image ${(face as { src: string }).src}`;
  }
  return JSON.stringify(face) ?? String(face);
}

/**
 * The roll's total is tally.ts's: numbers of the values that are not dropped (faces that are not numbers
 * count nothing; a d100 pair counts 1..100 through its dice's numericValue), modifiers included, a counting
 * group part +1, -1 or 0; then `*`, `/`, `round`. This says which dice are in counting group parts.
 */
function poolPartsOfPlan(plan: Plan | null, n: number): number[] | null {
  if (plan === null || !plan.groups.some(isPoolGroup)) return null;
  const ids = partIds(plan.groups, n);
  let id = 0;
  for (const g of plan.groups) {
    for (let p = 0; p < g.parts.length; p++, id++) {
      if (!isPoolGroup(g)) for (let i = 0; i < n; i++) if (ids[i] === id) ids[i] = -1;
    }
  }
  return ids;
}
