import test from 'ava';
import { DiceError, MAX_EQUATION_LENGTH, parseEquation, rollDice, rollEquation, type OperatorInput } from '../../src/dice/index';
import { CUSTOM, faces, resolve, seeded, T } from './helpers';

const types = (eq: string): string =>
  parseEquation(eq)
    .dice.map((d) => (d.type === 'mod' ? `mod:${d.value}` : d.type))
    .join(' ');

function refused(t: import('ava').ExecutionContext, eq: string, pattern?: RegExp): void {
  const e = t.throws(() => parseEquation(eq), { instanceOf: DiceError }, eq)!;
  t.is(e.status, 400, eq);
  t.is(e.code, 'invalid_equation', eq);
  t.is(e.details[0]!.path, 'equation', eq);
  if (pattern) t.regex(e.message, pattern, eq);
}

test('dice, counts and modifiers', (t) => {
  t.is(types('4d6kh3+2'), 'd6 d6 d6 d6 mod:2');
  t.is(types('d20'), 'd20');
  t.is(types(' 1D20 + 5 '), 'd20 mod:5');
  t.is(types('1d20-2'), 'd20 mod:-2');
  t.is(types('-1+1d20'), 'mod:-1 d20');
  t.is(types('2d8+1d6+1.5'), 'd8 d8 d6 mod:1.5');
  t.is(types('7'), 'mod:7');
});

test('d100 and d% are a d10x + d10 pair; d10x and custom dice by their names', (t) => {
  t.is(types('1d100'), 'd10x d10');
  t.is(types('2d%'), 'd10x d10 d10x d10');
  t.is(types('1d10x'), 'd10x');
  t.is(types('3{dF}'), 'df df df');
  t.is(types('{my die}'), 'my die');
});

test('operators on all dice become strings; mi and ma numbers', (t) => {
  t.deepEqual(parseEquation('4d6kh3+2').operator, { k: 'h3' });
  t.deepEqual(parseEquation('2d20kl1').operator, { k: 'l1' });
  t.deepEqual(parseEquation('4d6kh1kl1').operator, { k: 'h1,l1' });
  t.deepEqual(parseEquation('4d6rr1ro<2ra6e>5mi2ma5').operator, { rr: '1', ro: '<2', ra: '6', e: '>5', mi: 2, ma: 5 });
  t.deepEqual(parseEquation('4d6kh3pl1').operator, { k: 'h3', p: 'l1' });
  t.deepEqual(parseEquation('(1d20, 1d12)kh1').operator, { k: 'h1' });
  t.deepEqual(parseEquation('4{df}e-1').operator, { e: '-1' });
  t.is(parseEquation('1d20+5').operator, undefined);
});

test('operators on some dice become objects of indices', (t) => {
  t.deepEqual(parseEquation('2d20kh1+1d6').operator, { k: { h1: [0, 1] } });
  t.deepEqual(parseEquation('1d6+2d20kh1').operator, { k: { h1: [1, 2] } });
  t.deepEqual(parseEquation('2d20kh1+2d20kl1+1').operator, { k: { h1: [0, 1], l1: [2, 3] } });
  t.deepEqual(parseEquation('2d100kh1+1d6').operator, { k: { h1: [0, 1, 2, 3] } });
  t.deepEqual(parseEquation('2d20kh1+3d6e6').operator, { k: { h1: [0, 1] }, e: { 6: [2, 3, 4] } });
  // One key order for all groups: the first group runs e then k, the second only k.
  const mixed = parseEquation('2d6e6kh1+2d20kl1').operator!;
  t.deepEqual(mixed, { e: { 6: [0, 1] }, k: { h1: [0, 1], l1: [2, 3] } });
  t.deepEqual(Object.keys(mixed), ['e', 'k']);
});

test('scaling and rounding', (t) => {
  t.deepEqual(parseEquation('(1d20+5)*2').operator, { '*': 2 });
  t.deepEqual(parseEquation('floor((1d20+5)/2)').operator, { '/': 2, round: 'down' });
  t.deepEqual(parseEquation('ceil(1d20/3)').operator, { '/': 3, round: 'up' });
  t.deepEqual(parseEquation('round(2d6kh1*1.5)').operator, { k: 'h1', '*': 1.5, round: 'nearest' });
  t.deepEqual(parseEquation('round(1d6)').operator, { round: 'nearest' });
});

test('malformed equations are refused with a readable message', (t) => {
  refused(t, '');
  refused(t, 'abc', /Expected a die/);
  refused(t, '1d', /After "d"/);
  refused(t, '1d20+', /Expected a die/);
  refused(t, '1d20 kh1', /Unexpected/);
  refused(t, '1d20kh', /needs a selector/);
  refused(t, '0d6', /whole number/);
  refused(t, '1.5d6', /whole number/);
  refused(t, '2d$', /After "d"/); // 2dF is a fudge die now (a notation dX): see dice-pools.test.ts
  refused(t, '1d20-1d4', /subtracted/);
  // `1d20+5*2` is no mistake any more: the SDK reads it so (the 5 doubled), and so does parseEquation.
  refused(t, '((1d6)*2)*3+1d4', /multiplied once/);
  refused(t, '{1d6*2, 1d4}kh1', /inside a group/);
  refused(t, '(1d20*2, 1d12)kh1', /each die alone/);
  refused(t, '(1d20+5)*2*3', /Only one \*/);
  refused(t, '1d20/0', /divide by 0/);
  refused(t, '(2d20)kh1', /each die alone/);
  refused(t, '(1d20kh1, 1d6)', /each die alone/);
  refused(t, '3d6mih1', /takes a number/);
  refused(t, '1d20)', /Unexpected/);
  refused(t, 'floor(1d20', /Expected "\)"/);
  refused(t, '{}', /braces/);
  refused(t, 'x'.repeat(MAX_EQUATION_LENGTH + 1), new RegExp(`at most ${MAX_EQUATION_LENGTH}`));
});

test('more than 100 dice are refused while parsing, before anything is built', (t) => {
  refused(t, '101d6', /at most 100/);
  refused(t, '60d6+41d6', /at most 100/);
  refused(t, '51d100', /at most 100/);
  refused(t, '99999999999d6');
  t.is(parseEquation('100d6').dice.length, 100);
});

test('equations the operator object cannot hold are refused, not misread', (t) => {
  refused(t, '4d6kh3pl1kh1', /repeat/);
  refused(t, '2d6kh1e6+2d6e6kh1', /different orders/);
});

// ---- writing and reading back ----

const canonical = [
  '1d20+5',
  '4d6kh3',
  '4d6kh3+2',
  '2d20kl1',
  '2d20kh1+1d6',
  '1d100',
  '2d100kh1',
  '8d6e6',
  '10d10rr<3',
  '3d6ro1',
  '3d6ra6',
  '4d6kh1kl1',
  '4d6kh3pl1',
  '4d6mi2ma5',
  '4d6kh2mi4',
  '(1d20, 1d12)kh1+2',
  '1d20-2',
  '(1d20+5)*2',
  'floor((1d20+5)/2)',
  'ceil((2d6)/3)',
  'round((1d20)*1.5)',
  '2{df}+1',
  '1d10x+1d6',
  '2d20kh1+2d20kl1',
  '2d20kh1+3d6e6',
  '1d6+2d8ph1',
  '4{df}e-1',
  '5',
  '1d20kh1+1d20kh1',
  '{4d6+2d8, 3d20+3}kh1',
  '{4d6kh3, 4d6kh3}',
  '{4d6+2d8, 3d20+3}kl1',
  '{4d6+2d8, 3d20+3}dh1',
  '{4d6+2d8, 3d20+3}>=10',
  '{1d20, 1d20}',
  '{2d20}kh1',
  '{1d20, 1d12}kh1',
  '{3d20+5}>40',
  '{4d6+2d8, 3d20+3, 5d10+1}>40f<30',
  '{2d6, 2d6}sd',
  '{4d6+2d8, 3d20+3}ph1+2',
  'floor(({2d6, 1d12}kh1)/2)',
  '{(1d20, 1d12)kh1+2, 2d8}kl1',
];

test('the engine writes back exactly the canonical equations it reads', (t) => {
  for (const eq of canonical) {
    const r = rollEquation(eq, T, resolve, seeded(3));
    t.is(r.equation, eq);
    t.deepEqual(parseEquation(r.equation), parseEquation(eq), eq);
  }
});

test('a custom die is written by its notation and resolves back through it', (t) => {
  const r = rollDice(
    [
      { type: 'fate', theme: T },
      { type: 'fate', theme: T },
    ],
    { k: 'h1' },
    resolve,
    faces(1, 6),
  );
  t.is(r.equation, `2{${CUSTOM.fate!.notation.toLowerCase()}}kh1`);
  const again = rollEquation(r.equation, T, resolve, faces(2, 3));
  t.deepEqual(
    again.values.map((v) => v.valueToDisplay),
    ['-1', '0'],
  );
});

test('rollEquation rolls what parseEquation says, in one theme', (t) => {
  const r = rollEquation('4d6kh3+2', T, resolve, faces(1, 3, 4, 3));
  t.is(r.total, 12);
  t.deepEqual(r.operator, { k: 'h3' });
  t.true(r.values.every((v) => v.theme === T));
  const e = t.throws(() => rollEquation('1d20', 'bare', resolve, faces()), { instanceOf: DiceError })!;
  t.is(e.status, 422);
});

test('the parse cache hands out nothing a caller could change', (t) => {
  const a = rollEquation('2d20kh1', T, resolve, faces(1, 2));
  t.throws(() => {
    (a.operator as OperatorInput).k = 'l1';
  });
  t.deepEqual(rollEquation('2d20kh1', T, resolve, faces(1, 2)).operator, { k: 'h1' });
  const p = parseEquation('2d20kh1');
  p.operator!.k = 'l1'; // parseEquation's own results are the caller's
  t.deepEqual(parseEquation('2d20kh1').operator, { k: 'h1' });
});

test('random requests: the written equation reads back to the same dice and operators', (t) => {
  const rng = seeded(42);
  const pick = <T>(xs: T[]): T => xs[rng.int(xs.length)]!;
  const ops: OperatorInput[] = [{}, { k: 'h1' }, { p: 'l1' }, { rr: '1' }, { e: '6' }, { ro: '<3', k: 'h2' }, { mi: 3 }, { ra: '>4', ma: 5 }];
  for (let i = 0; i < 500; i++) {
    const n = 1 + rng.int(6);
    const kinds = ['d4', 'd6', 'd8', 'd20', 'fate'];
    const dice = Array.from({ length: n }, () => ({ type: pick(kinds), theme: T }));
    if (rng.int(2) === 0) dice.push({ type: 'mod', theme: T, value: rng.int(9) - 4 } as never);
    let operator: OperatorInput | undefined = pick(ops);
    if (Object.keys(operator).length === 0) operator = undefined;
    let r;
    try {
      r = rollDice(dice, operator, resolve, rng);
    } catch (e) {
      if (e instanceof DiceError && e.details[0]!.path.startsWith('operator.m')) continue; // mi/ma out of a die's range
      throw e;
    }
    const back = parseEquation(r.equation);
    const again = rollDice(
      back.dice.map((d) => ({ ...d, theme: T })),
      back.operator,
      resolve,
      rng,
    );
    t.is(again.equation, r.equation);
  }
});
