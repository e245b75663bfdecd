import test from 'ava';
import { DiceError, rollDice, standardDefinition, type OperatorInput, type RollResult } from '../../src/dice/index';
import { dice, faces, resolve, seeded } from './helpers';

/** Rolls with scripted faces and checks every scripted face was used. */
function roll(types: string[], operator: OperatorInput | undefined, ...script: number[]): RollResult {
  const rng = faces(...script);
  const r = rollDice(dice(...types), operator, resolve, rng);
  if (rng.left() !== 0) throw new Error(`${rng.left()} scripted faces were not drawn`);
  return r;
}

/** "6 2x 6r" : face, x when dropped, r/e for reroll/explosion origin. */
function shown(r: RollResult): string {
  return r.values
    .map(
      (v) =>
        `${String(typeof v.valueToDisplay === 'object' ? v.valueToDisplay.src : v.valueToDisplay)}` +
        `${v.isDropped ? 'x' : ''}${v.origin === 'reroll' ? 'r' : v.origin === 'explosion' ? 'e' : ''}`,
    )
    .join(' ');
}

const d6 = (n: number): string[] => Array.from({ length: n }, () => 'd6');

function refuses(t: import('ava').ExecutionContext, fn: () => unknown, path: string, status: 400 | 422 = 400): DiceError {
  const e = t.throws(fn, { instanceOf: DiceError })!;
  t.is(e.status, status);
  t.is(e.details[0]!.path, path);
  t.true(e.message.length > 10);
  return e;
}

// ---- k: keep ----

test('kh3 keeps the three highest of 4d6', (t) => {
  const r = roll(d6(4), { k: 'h3' }, 1, 3, 4, 3);
  t.is(shown(r), '1x 3 4 3');
  t.is(r.total, 10);
  t.is(r.equation, '4d6kh3');
});

test('kh1 breaks ties in roll order, like d20', (t) => {
  t.is(shown(roll(d6(3), { k: 'h1' }, 5, 6, 6)), '5x 6 6x');
  t.is(shown(roll(d6(3), { k: 'l1' }, 2, 6, 2)), '2 6x 2x');
});

test('kl1 keeps the lowest (disadvantage)', (t) => {
  const r = roll(['d20', 'd20'], { k: 'l1' }, 15, 4);
  t.is(shown(r), '15x 4');
  t.is(r.total, 4);
  t.is(r.equation, '2d20kl1');
});

test('keeping more than was rolled keeps everything', (t) => {
  const r = roll(['d20', 'd20'], { k: 'h3' }, 5, 7);
  t.is(shown(r), '5 7');
  t.is(r.total, 12);
});

test('k with a literal selector keeps only dice showing it', (t) => {
  t.is(shown(roll(d6(4), { k: '6' }, 6, 2, 6, 3)), '6 2x 6 3x');
  t.is(shown(roll(d6(4), { k: 6 }, 6, 2, 6, 3)), '6 2x 6 3x');
});

test('k with > and < selectors', (t) => {
  t.is(shown(roll(d6(4), { k: '>3' }, 3, 4, 1, 6)), '3x 4 1x 6');
  t.is(shown(roll(d6(4), { k: '<3' }, 3, 4, 1, 2)), '3x 4x 1 2');
});

test('several selectors of one operator select their union (d20 kh1kl1)', (t) => {
  const r = roll(d6(4), { k: 'h1,l1' }, 3, 6, 1, 4);
  t.is(shown(r), '3x 6 1 4x');
  t.is(r.equation, '4d6kh1kl1');
});

test('kh0 keeps nothing', (t) => {
  t.is(roll(d6(2), { k: 'h0' }, 3, 6).total, 0);
});

// ---- p / d: drop ----

test('pl1 drops the lowest, ph1 the highest, d is the SDK name for p', (t) => {
  t.is(shown(roll(d6(4), { p: 'l1' }, 2, 5, 1, 6)), '2 5 1x 6');
  t.is(shown(roll(d6(4), { p: 'h1' }, 2, 5, 1, 6)), '2 5 1 6x');
  const r = roll(d6(4), { d: 'l1' }, 2, 5, 1, 6);
  t.is(shown(r), '2 5 1x 6');
  t.is(r.equation, '4d6pl1');
});

test('p with literal, > and < selectors', (t) => {
  t.is(shown(roll(d6(4), { p: '1' }, 1, 5, 1, 6)), '1x 5 1x 6');
  t.is(shown(roll(d6(4), { p: '>4' }, 1, 5, 4, 6)), '1 5x 4 6x');
  t.is(shown(roll(d6(4), { p: '<2' }, 1, 5, 4, 1)), '1x 5 4 1x');
});

test('chained k then p act on what is still kept', (t) => {
  // kh3 drops the 1; pl1 then drops the lowest of the kept dice (the 2), not the 1 again.
  const r = roll(d6(4), { k: 'h3', p: 'l1' }, 2, 5, 1, 6);
  t.is(shown(r), '2x 5 1x 6');
  t.is(r.total, 11);
  t.is(r.equation, '4d6kh3pl1');
});

test('chained p then k', (t) => {
  const r = roll(d6(4), { p: 'h1', k: 'l1' }, 2, 5, 1, 6);
  t.is(shown(r), '2x 5x 1 6x');
  t.is(r.equation, '4d6ph1kl1');
});

test('p and d next to each other merge into one drop (d20 pl1pl1 drops one die)', (t) => {
  t.is(shown(roll(d6(3), { p: 'l1', d: 'l1' }, 2, 5, 1)), '2 5 1x');
  t.is(roll(d6(3), { p: 'l1', d: 'l1' }, 2, 5, 1).equation, '3d6pl1pl1');
  // Merging must not change the cached selector list that later rolls of "l1" share.
  t.is(roll(d6(3), { p: 'l1' }, 2, 5, 1).equation, '3d6pl1');
});

// ---- rr, ro, ra ----

test('rr rerolls until no die matches; rerolled dice stay as dropped values', (t) => {
  const r = roll(d6(3), { rr: '1' }, 1, 4, 1, /* rerolls */ 1, 3, /* again */ 5);
  t.is(shown(r), '1x 4 1x 1xr 3r 5r');
  t.is(r.total, 12);
  t.deepEqual(
    r.values.map((v) => v.dieIndex),
    [0, 1, 2, 0, 2, 0],
  );
  t.is(r.equation, '3d6rr1');
});

test('rr<3 rerolls every die below 3 until it is 3 or more', (t) => {
  const r = roll(d6(2), { rr: '<3' }, 2, 6, 1, 3);
  t.is(shown(r), '2x 6 1xr 3r');
  t.is(r.total, 9);
});

test('ro rerolls once, even when the new face matches again', (t) => {
  const r = roll(d6(2), { ro: '1' }, 1, 1, 1, 6);
  t.is(shown(r), '1x 1x 1r 6r');
  t.is(r.total, 7);
});

test('ra rolls one more die for the first match only and adds it', (t) => {
  const r = roll(d6(3), { ra: '6' }, 6, 6, 2, 4);
  t.is(shown(r), '6 6 2 4r');
  t.is(r.total, 18);
  t.is(r.values[3]!.dieIndex, 0);
});

test('ra with nothing to match rolls nothing', (t) => {
  t.is(roll(d6(2), { ra: '6' }, 3, 4).total, 7);
});

// ---- e: explode ----

test('e explodes each match, and the new dice explode too', (t) => {
  const r = roll(d6(2), { e: '6' }, 6, 3, 6, 2);
  t.is(shown(r), '6 3 6e 2e');
  t.is(r.total, 17);
  t.deepEqual(
    r.values.map((v) => v.dieIndex),
    [0, 1, 0, 0],
  );
});

test('e>4 explodes on 5 and 6', (t) => {
  t.is(shown(roll(d6(2), { e: '>4' }, 5, 6, 1, 2)), '5 6 1e 2e');
});

test('eh1 explodes the highest die, then only a new strictly highest one', (t) => {
  // 4 explodes -> 5 is the new highest and explodes -> 2 is not the highest: stop.
  t.is(shown(roll(d6(2), { e: 'h1' }, 4, 1, 5, 2)), '4 1 5e 2e');
});

// ---- mi / ma ----

test('mi raises low dice to the minimum, ma lowers high dice to the maximum', (t) => {
  const lo = roll(d6(3), { mi: 3 }, 1, 2, 5);
  t.is(shown(lo), '3 3 5');
  t.deepEqual(
    lo.values.map((v) => v.value),
    [3, 3, 5],
  );
  t.is(shown(roll(d6(3), { ma: '4' }, 6, 1, 5)), '4 1 4');
  t.is(lo.equation, '3d6mi3');
});

test('mi after k changes only the kept dice', (t) => {
  const r = roll(d6(4), { k: 'h2', mi: 4 }, 1, 2, 3, 6);
  t.is(shown(r), '1x 2x 4 6');
  t.is(r.total, 10);
  t.is(r.equation, '4d6kh2mi4');
});

test('mi before k: order of keys is the order of operations', (t) => {
  const r = roll(d6(4), { mi: 4, k: 'h2' }, 1, 2, 3, 6);
  t.is(shown(r), '4 4x 4x 6');
  t.is(r.equation, '4d6mi4kh2');
});

test('mi on dice whose faces are not 1..N moves to the nearest allowed face', (t) => {
  t.is(shown(roll(['fate', 'fate'], { mi: 0 }, 1, 6)), '0 +1');
});

test('mi past the highest face, or with a selector, is refused', (t) => {
  refuses(t, () => roll(d6(1), { mi: 7 }, 1), 'operator.mi');
  refuses(t, () => roll(d6(1), { ma: 0 }, 1), 'operator.ma');
  refuses(t, () => roll(d6(1), { mi: 'h1' }), 'operator.mi'); // refused before any draw
});

// ---- loops that could never end ----

test('a d1 with rr or e is refused, not a hang', (t) => {
  refuses(t, () => roll(['d1'], { rr: '1' }, 1), 'operator.rr');
  refuses(t, () => roll(['d1'], { e: '1' }, 1), 'operator.e');
  refuses(t, () => roll(d6(2), { rr: '<7' }, 1, 1), 'operator.rr');
  refuses(t, () => roll(d6(2), { e: '>0' }, 1, 1), 'operator.e');
  refuses(t, () => roll(d6(2), { rr: '1,2,3,4,5,6' }, 1, 1), 'operator.rr');
  refuses(t, () => roll(d6(2), { rr: 'h1' }, 1, 1), 'operator.rr');
});

test('rerolls that would pass 1,000 dice stop with a clear error', (t) => {
  const e = t.throws(() => rollDice(dice(...Array.from({ length: 100 }, () => 'd20')), { rr: '<20' }, resolve, seeded(7)), { instanceOf: DiceError })!;
  t.is(e.code, 'too_many_dice');
  t.regex(e.message, /1000/);
});

// ---- sets: string, object, overlaps ----

test('an object maps a selector to the dice it applies to', (t) => {
  const r = roll(['d20', 'd20', 'd6'], { k: { h1: [0, 1] } }, 8, 17, 6);
  t.is(shown(r), '8x 17 6');
  t.is(r.total, 23);
  t.is(r.equation, '2d20kh1+1d6');
});

test('an object may hold several selectors for different dice', (t) => {
  const r = roll(['d20', 'd20', 'd20', 'd20'], { k: { h1: [0, 1], l1: [2, 3] } }, 8, 17, 6, 3);
  t.is(shown(r), '8x 17 6x 3');
  t.is(r.equation, '2d20kh1+2d20kl1');
});

test('a string applies to all dice of the roll as one set, across types', (t) => {
  const r = roll(['d20', 'd12', 'mod:2'], { k: 'h1' }, 3, 9);
  t.is(shown(r), '3x 9 2');
  t.is(r.total, 11);
  t.is(r.equation, '(1d20, 1d12)kh1+2');
});

test('operators on the same dice or on different dice combine; overlapping dice are refused', (t) => {
  t.is(roll(['d20', 'd20', 'd6'], { k: { h1: [0, 1] }, e: { 6: [2] } }, 8, 17, 6, 1).total, 24);
  t.is(roll(d6(2), { k: 'h1', e: { 6: [0, 1] } }, 6, 1, 2).equation, '2d6kh1e6');
  refuses(t, () => roll(['d20', 'd20', 'd6'], { k: 'h1', e: { 6: [2] } }, 1, 1, 1), 'operator.e.6');
});

test('bad indices in an object are refused with their path', (t) => {
  refuses(t, () => roll(['d20', 'mod:2'], { k: { h1: [5] } }, 1), 'operator.k.h1[0]');
  refuses(t, () => roll(['d20', 'mod:2'], { k: { h1: [0, 1] } }, 1), 'operator.k.h1[1]');
  refuses(t, () => roll(['d20'], { k: { h1: [] } }, 1), 'operator.k.h1');
  refuses(t, () => roll(['d20'], { k: { h1: 'all' as unknown as number[] } }, 1), 'operator.k.h1');
  refuses(t, () => roll(['d20'], { k: {} }, 1), 'operator.k');
});

test('unknown operators and bad selectors are refused', (t) => {
  refuses(t, () => roll(['d20'], { x: 'h1' }, 1), 'operator.x');
  refuses(t, () => roll(['d20'], { k: 'q3' }, 1), 'operator.k');
  refuses(t, () => roll(['d20'], { k: '' }, 1), 'operator.k');
  refuses(t, () => roll(['d20'], { k: 'h-1' }, 1), 'operator.k');
  refuses(t, () => roll(['d20'], { k: 1.5 }, 1), 'operator.k');
  refuses(t, () => roll(['d20'], [] as unknown as OperatorInput, 1), 'operator');
});

// ---- the SDK's *, /, round ----

test('* and / scale the total; round rounds it', (t) => {
  t.is(roll(['d20', 'mod:5'], { '*': 2 }, 10).total, 30);
  t.is(roll(['d20', 'mod:5'], { '/': 2 }, 10).total, 7.5);
  t.is(roll(['d20', 'mod:5'], { '/': 2, round: 'down' }, 10).total, 7);
  t.is(roll(['d20', 'mod:5'], { '/': 2, round: 'up' }, 10).total, 8);
  t.is(roll(['d20', 'mod:5'], { '/': 2, round: 'nearest' }, 10).total, 8);
  t.is(roll(['d20', 'mod:-10'], { '/': 2, round: 'nearest' }, 5).total, -3); // halves away from zero
  t.is(roll(['d20', 'mod:5'], { '/': '2', round: 'down' }, 10).equation, 'floor((1d20+5)/2)');
  t.is(roll(['d6', 'd6'], { k: 'h1', '*': 3 }, 2, 5).equation, '(2d6kh1)*3');
  refuses(t, () => roll(['d20'], { '/': 0 }, 1), 'operator./');
  refuses(t, () => roll(['d20'], { round: 'sideways' }, 1), 'operator.round');
  refuses(t, () => roll(['d20'], { '*': 'lots' }, 1), 'operator.*');
});

// ---- dice whose faces are not numbers ----

test('dice whose faces are not numbers are never selected and never dropped by k', (t) => {
  const r = roll(['word', 'd20', 'd20'], { k: 'h1' }, 4, 3, 12);
  t.is(shown(r), 'crit 3x 12');
  t.is(r.total, 12);
});

// ---- d100 ----

test('2d100kh1 keeps the higher percentile pair as a whole', (t) => {
  // pair 1: 30 + 4 = 34; pair 2: 70 + 10(0) = 70
  const r = roll(['d10x', 'd10', 'd10x', 'd10'], { k: 'h1' }, 4, 4, 8, 10);
  t.is(shown(r), '30x 4x 70 10');
  t.is(r.total, 70);
  t.is(r.equation, '2d100kh1');
});

test('mi on a d100 moves both dice', (t) => {
  const r = roll(['d10x', 'd10'], { mi: 50 }, 3, 3); // 23 -> 50 = 50 + 10(0)
  t.is(shown(r), '50 10');
  t.is(r.total, 50);
});

test('rr on a d100 rerolls both dice', (t) => {
  const r = roll(['d10x', 'd10'], { rr: '<10' }, 1, 5, 2, 1); // 05 -> 11
  t.is(shown(r), '0x 5x 10r 1r');
  t.is(r.total, 11);
});

// ---- keys are the request's: only the operator object's own keys, matched against known operators ----

const INHERITED = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__'];

test('operator keys that name built-in object properties are not operators (constructor, __proto__, toString)', (t) => {
  for (const key of INHERITED) {
    // JSON.parse makes `__proto__` an own key, as the request body parser does.
    const operator = JSON.parse(`{${JSON.stringify(key)}: "h1"}`) as OperatorInput;
    t.true(Object.hasOwn(operator, key), key);
    const e = refuses(t, () => roll(d6(2), operator), `operator.${key}`);
    t.is(e.code, 'invalid_operator');
    t.regex(e.message, /is not an operator/, key);
    t.false(e.message.includes('native code'), key);
  }
});

test('round modes are looked up as own keys too: round "constructor" is refused, not a mode', (t) => {
  for (const mode of INHERITED) refuses(t, () => roll(d6(1), { round: mode }), 'operator.round');
});

test('a selector operand named like a built-in property is a bad selector, not a lookup', (t) => {
  for (const operand of INHERITED) {
    const operator = JSON.parse(`{"k": {${JSON.stringify(operand)}: [0]}}`) as OperatorInput;
    refuses(t, () => roll(d6(2), operator), `operator.k.${operand}`);
  }
});

test('inherited keys of the operator object are ignored: only its own keys count', (t) => {
  const operator = Object.create({ k: 'h1' }) as OperatorInput;
  const r = roll(d6(2), operator, 3, 5);
  t.is(r.equation, '2d6', 'the inherited k did not run');
  t.is(r.total, 8);
});

test('standardDefinition knows only the standard dice, not built-in object properties', (t) => {
  for (const id of INHERITED) t.is(standardDefinition(id), null, id);
  t.is(standardDefinition('D6')?.faces.length, 6);
});
