import test from 'ava';
import { diceOfPlainSum, equationOf, pickerDice } from '../../src/board/picker';
import { faceText } from '../../src/board/view';

/** The board's pure helpers (no browser needed, kept beside the browser tests they serve). */

test('the picker writes its counts as an equation, in picker order', (t) => {
  t.is(equationOf({ d20: 1, d6: 2 }), '2d6+1d20');
  t.is(equationOf({ d6: 0 }), '');
  t.is(equationOf({ d100: 1, d4: 3 }), '3d4+1d100');
});

test("the picker offers the chosen theme's dice with their notation, a d100 for a d10x and a d10", (t) => {
  const standard = pickerDice({ available_dice: ['d4', 'd6', 'd8', 'd10', 'd10x', 'd12', 'd20', 'd2', 'd16'] });
  t.deepEqual(
    standard.map((d) => d.id),
    ['d4', 'd6', 'd8', 'd10', 'd12', 'd20', 'd2', 'd16', 'd100'],
  );
  const custom = pickerDice({ available_dice: ['d6', { id: 'fate', type: 'd6', notation: 'dF' }, { id: 'big', type: 'd20' }, { id: 'd10x', type: 'd10x' }] });
  t.deepEqual(custom, [
    { id: 'd6', notation: 'd6' },
    { id: 'fate', notation: 'dF' },
    { id: 'big', notation: 'big' },
    { id: 'd10x', notation: 'd10x' },
  ]);
  t.is(equationOf({ fate: 2, d6: 1, big: 1, d10x: 1 }, custom), '1d6+2{fate}+1{big}+1d10x');
  t.deepEqual(diceOfPlainSum('2{dF}+1', 'x', true, custom), [
    { type: 'fate', theme: 'x', is_hidden: true },
    { type: 'fate', theme: 'x', is_hidden: true },
    { type: 'mod', theme: 'x', value: 1, is_hidden: true },
  ]);
});

test('a hidden roll turns a plain sum into dice, each hidden; anything else is refused', (t) => {
  t.deepEqual(diceOfPlainSum('2d6 + d20 - 1', 'standard', true), [
    { type: 'd6', theme: 'standard', is_hidden: true },
    { type: 'd6', theme: 'standard', is_hidden: true },
    { type: 'd20', theme: 'standard', is_hidden: true },
    { type: 'mod', theme: 'standard', value: -1, is_hidden: true },
  ]);
  t.deepEqual(diceOfPlainSum('1d100', 'x', true), [
    { type: 'd10x', theme: 'x', is_hidden: true },
    { type: 'd10', theme: 'x', is_hidden: true },
  ]);
  for (const refused of ['4d6kh3', '2d6*2', '-1d6', '3', '', 'd', '101d6', '2d6+(1d4)']) t.is(diceOfPlainSum(refused, 'standard', true), null, refused);
});

test('a die shows its face, ? when hidden from you, a signed number for a modifier', (t) => {
  const base = {
    uuid: 'u',
    theme: 'standard',
    is_hidden: false,
    is_user_value: false,
    is_visible: true,
    is_cleared: false,
    is_dropped: false,
    is_success: false,
    is_failure: false,
    is_compounded: false,
    is_penetrated: false,
    die_index: 0,
    group: null,
    group_part: null,
    created_at: '',
    updated_at: '',
  };
  t.is(faceText({ ...base, type: 'd20', value: 17, value_to_display: '17' }), '17');
  t.is(faceText({ ...base, type: 'd20', value: null, value_to_display: null, is_hidden: true }), '?');
  t.is(faceText({ ...base, type: 'mod', value: 3, value_to_display: '3' }), '+3');
  t.is(faceText({ ...base, type: 'mod', value: -2, value_to_display: '-2' }), '-2');
  t.is(faceText({ ...base, type: 'df', value: 2, value_to_display: { src: 'plus.png' } }), '2');
});
