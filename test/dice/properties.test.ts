/**
 * Properties over many random rolls. The seeded source makes a failure reproducible; the last test runs the
 * real crypto source through the same checks.
 */
import test from 'ava';
import { CryptoRng, parseEquation, rollDice, rollEquation, STANDARD_DICE, type RollResult, type Rng } from '../../src/dice/index';
import { resolve, seeded, T } from './helpers';

const ROLLS = 3000;

function facesOf(type: string): (number | string | object)[] {
  return (STANDARD_DICE[type]?.faces ?? resolve(T, type)!.faces) as (number | string | object)[];
}

/** Checks every value shows a face of its die and the total adds up. */
function wellFormed(t: import('ava').ExecutionContext, r: RollResult, what: string): boolean {
  let sum = 0;
  for (const v of r.values) {
    if (v.type === 'mod') {
      sum += v.numericValue!;
      continue;
    }
    const fs = facesOf(v.type);
    if (!(Number.isInteger(v.value) && v.value >= 1 && v.value <= fs.length)) {
      t.fail(`${what}: value ${v.value} is not a face of ${v.type}`);
      return false;
    }
    if (fs[v.value - 1] !== v.valueToDisplay) {
      t.fail(`${what}: face ${v.value} of ${v.type} is not ${String(v.valueToDisplay)}`);
      return false;
    }
    if (!v.isDropped && v.numericValue !== null) sum += v.numericValue;
  }
  if (sum !== r.total) {
    t.fail(`${what}: values add up to ${sum}, total says ${r.total}`);
    return false;
  }
  return true;
}

function many(rng: Rng, eq: string, check: (r: RollResult) => string | null, t: import('ava').ExecutionContext): void {
  for (let i = 0; i < ROLLS; i++) {
    const r = rollEquation(eq, T, resolve, rng);
    if (!wellFormed(t, r, eq)) return;
    const problem = check(r);
    if (problem !== null) return t.fail(`${eq} (roll ${i}): ${problem}: ${JSON.stringify(r.values.map((v) => v.valueToDisplay))}`);
  }
  t.pass();
}

const kept = (r: RollResult) => r.values.filter((v) => !v.isDropped && v.type !== 'mod');

test('every face is in range and totals add up, for every kind of roll', (t) => {
  const rng = seeded(1);
  for (const eq of [
    '1d2+1d4+1d6+1d8+1d10+1d10x+1d12+1d16+1d20',
    '3d100',
    '4d6kh3+2',
    '10d10rr<3',
    '8d6e6',
    '4{df}ro-1',
    '6d8ra8mi2',
    '5d12p>10ma9',
    '(1d20, 1d12, 1{word})kh1',
    '2d20kl1-3',
  ]) {
    many(rng, eq, () => null, t);
  }
});

test('d100 pairs always total 1..100', (t) => {
  many(seeded(2), '1d100', (r) => (r.total >= 1 && r.total <= 100 ? null : `total ${r.total}`), t);
});

test('rr leaves no kept die matching its selector', (t) => {
  const rng = seeded(3);
  many(rng, '10d10rr<3', (r) => (kept(r).some((v) => v.value < 3) ? 'a kept die below 3' : null), t);
  many(rng, '6d6rr1rr6', (r) => (kept(r).some((v) => v.value === 1 || v.value === 6) ? 'a kept 1 or 6' : null), t);
});

test('ro rerolls each die at most once, and only dice that matched', (t) => {
  many(
    seeded(4),
    '8d6ro<3',
    (r) => {
      const first = r.values.filter((v) => v.origin === 'roll');
      const rerolls = r.values.filter((v) => v.origin === 'reroll');
      const perDie = new Map<number, number>();
      for (const v of rerolls) perDie.set(v.dieIndex, (perDie.get(v.dieIndex) ?? 0) + 1);
      if ([...perDie.values()].some((c) => c > 1)) return 'a die was rerolled twice';
      for (const v of first) {
        if (v.value < 3 !== perDie.has(v.dieIndex)) return `die ${v.dieIndex} showing ${v.value} was ${perDie.has(v.dieIndex) ? '' : 'not '}rerolled`;
        if (v.value < 3 !== v.isDropped) return 'a rerolled die is still kept, or a kept die dropped';
      }
      return null;
    },
    t,
  );
});

test('ra adds at most one die per roll', (t) => {
  many(
    seeded(5),
    '6d6ra>4',
    (r) => {
      const added = r.values.filter((v) => v.origin === 'reroll').length;
      const matched = r.values.some((v) => v.origin === 'roll' && v.value > 4);
      return added === (matched ? 1 : 0) ? null : `${added} dice added`;
    },
    t,
  );
});

test('e explodes each matching die exactly once', (t) => {
  many(
    seeded(6),
    '8d6e6',
    (r) => {
      const sixes = r.values.filter((v) => v.value === 6).length;
      const explosions = r.values.filter((v) => v.origin === 'explosion').length;
      return sixes === explosions ? null : `${sixes} sixes but ${explosions} explosions`;
    },
    t,
  );
});

test('kh keeps the N highest, kl the N lowest', (t) => {
  const rng = seeded(7);
  many(
    rng,
    '6d20kh2',
    (r) => {
      const all = r.values.map((v) => v.value).sort((a, b) => b - a);
      const k = kept(r)
        .map((v) => v.value)
        .sort((a, b) => b - a);
      return k.length === 2 && k[0] === all[0] && k[1] === all[1] ? null : 'not the two highest';
    },
    t,
  );
  many(rng, '6d20kl1', (r) => (kept(r).length === 1 && kept(r)[0]!.value === Math.min(...r.values.map((v) => v.value)) ? null : 'not the lowest'), t);
});

test('mi and ma keep kept dice within bounds', (t) => {
  many(seeded(8), '6d20mi5ma15', (r) => (kept(r).every((v) => v.value >= 5 && v.value <= 15) ? null : 'out of bounds'), t);
});

test('the crypto source passes the same checks', (t) => {
  const rng = new CryptoRng();
  many(rng, '10d10rr<3', (r) => (kept(r).some((v) => v.value < 3) ? 'a kept die below 3' : null), t);
  many(rng, '4d6kh3+2', (r) => (kept(r).length === 3 ? null : 'not three kept'), t);
  many(rng, '2d100', () => null, t);
  // Equations read back from results roll the same shape.
  const r = rollDice(
    [
      { type: 'd20', theme: T },
      { type: 'd20', theme: T },
    ],
    { k: 'h1' },
    resolve,
    rng,
  );
  t.deepEqual(parseEquation(r.equation).operator, { k: 'h1' });
});
