import test from 'ava';
import { rollDice, standardDefinition, type DieRequest, type OperatorInput } from '../../src/dice/index';
import { viewerEquation, viewerTotal } from '../../src/dice/hidden';
import { seeded } from './helpers';

/** What a viewer who may not see every die gets (src/dice/hidden.ts), against the engine that rolled. */
const resolve = (_theme: string, type: string) => standardDefinition(type);
const d = (type: string, extra: Partial<DieRequest> = {}): DieRequest => ({ type, theme: 'standard', ...extra });

test('with nothing hidden, the viewer gets exactly the stored total and equation, for every scaling', (t) => {
  const operators: Array<OperatorInput | undefined> = [
    undefined,
    { '*': 2 },
    { '/': 3, round: 'down' },
    { '*': 3, '/': 2, round: 'nearest' },
    { round: 'up', '/': 4 },
    { k: 'h2' },
  ];
  const rng = seeded(42);
  for (const operator of operators) {
    for (let i = 0; i < 50; i++) {
      const dice = [d('d20'), d('d6'), d('d6'), d('mod', { value: -3 }), d('mod', { value: 7 })];
      const result = rollDice(dice, operator, resolve, rng);
      t.is(viewerTotal(result.values, result.operator), result.total, JSON.stringify(operator));
      t.is(viewerEquation(result.equation, result.operator, result.values), result.equation);
    }
  }
});

test('a hidden modifier is left out of the total and of the equation, inside the scaling', (t) => {
  const dice = [d('d20'), d('mod', { value: 5 }), d('mod', { value: -2, isHidden: true }), d('mod', { value: 4 })];
  const result = rollDice(dice, { '*': 2, round: 'down' }, resolve, seeded(7));
  const die = result.values.find((v) => v.type === 'd20')!;
  t.is(result.equation, 'floor((1d20+5-2+4)*2)');
  t.is(viewerEquation(result.equation, result.operator, result.values), 'floor((1d20+5+4)*2)');
  t.is(viewerTotal(result.values, result.operator), Math.floor((die.numericValue! + 5 + 4) * 2));
});

test('a hidden die counts nothing for the viewer; modifiers alone are written alone', (t) => {
  const dice = [d('d6', { isHidden: true }), d('mod', { value: 3, isHidden: true }), d('mod', { value: 1 })];
  const result = rollDice(dice, undefined, resolve, seeded(3));
  t.is(viewerTotal(result.values, result.operator), 1);
  t.is(viewerEquation(result.equation, result.operator, result.values), '1d6+1');
  const modsOnly = rollDice([d('mod', { value: 3, isHidden: true }), d('mod', { value: 2 })], undefined, resolve, seeded(3));
  t.is(viewerEquation(modsOnly.equation, modsOnly.operator, modsOnly.values), '2');
});

test("an equation whose shape is not the engine's gives an empty equation, never the secret", (t) => {
  const values = [{ type: 'mod', dieIndex: 0, isHidden: true, isDropped: false, isSuccess: false, isFailure: false, numericValue: 9 }];
  t.is(viewerEquation('something else', null, values), '');
  t.is(viewerEquation('floor(1d20+9', { round: 'down' }, values), '');
});
