import test from 'ava';
import { MAX_EQUATION_LENGTH } from '../../src/dice/index';
import { useServer } from '../helpers/server';
import { manifest, postTheme } from '../fixtures/themes';

/**
 * PostgreSQL and SQLite must agree. Every text column is as long as validation
 * allows, or validation refuses what it cannot hold (docs/api.md, "Text columns"). These are the values
 * that overflowed a column on PostgreSQL (a 500) while SQLite, which ignores varchar lengths, stored them.
 * The background link (rooms.bg_file_path) is covered by rooms.backgroundHost.test.ts, participant names
 * after normalization (participants.username) by participants.names.test.ts.
 */
const ctx = useServer(test);

test('rolls.equation: 100 modifiers with long decimals write an equation over 1,024 characters; 201 and stored whole', async (t) => {
  const { api } = await ctx.server.newUser();
  const dice = [
    { type: 'd6', theme: 'standard' },
    ...Array.from({ length: 99 }, (_, i) => ({ type: 'mod', value: i % 2 ? -123456789.123456 : 987654321.654321 })),
  ];
  const res = await api.post('/roll', { dice });
  t.is(res.status, 201, res.text.slice(0, 300));
  const equation: string = res.body.data.equation;
  t.true(equation.length > 1024, `${equation.length} characters`);
  t.true(equation.startsWith('1d6+987654321.654321-123456789.123456+'));
  const again = await api.get(`/roll/${res.body.data.uuid}`);
  t.is(again.body.data.equation, equation, 'read back from the database unchanged');
});

test('rolls.equation: 20 custom dice with 55-character ids write an equation over 1,024 characters; 201 and stored whole', async (t) => {
  const { api } = await ctx.server.newUser();
  const ids = Array.from({ length: 20 }, (_, i) => `die-${String(i).padStart(2, '0')}-${'x'.repeat(48)}`);
  t.is(ids[0]!.length, 55);
  const m = manifest({ available_dice: ids.map((id) => ({ id, type: 'd6' })) });
  const made = await postTheme(api, m);
  t.is(made.status, 201, made.text.slice(0, 300));
  const res = await api.post('/roll', { dice: ids.map((type) => ({ type, theme: m.id })), label: 'long' });
  t.is(res.status, 201, res.text.slice(0, 300));
  const equation: string = res.body.data.equation;
  t.true(equation.length > 1024, `${equation.length} characters`);
  t.is(equation, ids.map((id) => `1{${id}}`).join('+'));
  t.is((await api.get(`/roll/${res.body.data.uuid}`)).body.data.equation, equation);
});

test('rolls.equation through an equation: the longest one accepted (MAX_EQUATION_LENGTH characters) is stored whole', async (t) => {
  const { api } = await ctx.server.newUser();
  // 1d6 then modifiers, as long as MAX_EQUATION_LENGTH allows
  let equation = '1d6';
  while (equation.length + 17 <= MAX_EQUATION_LENGTH) equation += '+123456789.123456';
  const res = await api.post('/roll', { equation, theme: 'standard' });
  t.is(res.status, 201, res.text.slice(0, 300));
  t.is(res.body.data.equation, equation);
});

test('text columns at their validation limits: labels, external ids, room names and passcodes of the longest accepted length (astral characters too)', async (t) => {
  const { api } = await ctx.server.newUser();
  // '😀' is two UTF-16 units: joi counts units, PostgreSQL characters, so 127 of them (254 units) fit a varchar(255)
  for (const label of ['l'.repeat(255), '😀'.repeat(127) + 'x', 'é'.repeat(255)]) {
    const res = await api.post('/roll', { dice: [{ type: 'd6', theme: 'standard', label }], label, external_id: label });
    t.is(res.status, 201, res.text.slice(0, 200));
    t.is(res.body.data.label, label);
    t.is(res.body.data.values[0].label, label);
  }
  const tooLong = await api.post('/roll', { dice: [{ type: 'd6', theme: 'standard' }], label: 'l'.repeat(256) });
  t.is(tooLong.status, 400);
  const room = await api.post('/room', { name: 'n'.repeat(255), is_public: false, passcode: 'p'.repeat(64) });
  t.is(room.status, 201, room.text.slice(0, 200));
  t.is(room.body.data.name, 'n'.repeat(255));
  t.is((await api.post('/room', { name: 'n'.repeat(256) })).status, 400);
  t.is((await api.post('/room', { passcode: 'p'.repeat(65), is_public: false })).status, 400);
  // a die type of 64 characters that lower-cases longer (U+0130 is two units in lower case) is not a die: 422, not a 500
  const odd = await api.post('/roll', { dice: [{ type: '\u0130'.repeat(64), theme: 'standard' }] });
  t.is(odd.status, 422);
});
