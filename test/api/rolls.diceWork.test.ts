/**
 * The dice engine's work limits through HTTP (docs/dice.md, "Work limits"): the rolls that held the event
 * loop for seconds (a 999-character explosion chain, kilobytes of selectors in an operand key) are 400s
 * with the error body, answered without the work; a roll past the work budget is a 400 naming the operator;
 * and the server keeps answering. That the refusals come before the work is shown by what they name (the
 * length or selector rule, checked before the engine runs; the budget's count is tested in
 * test/dice/budget.properties.test.ts without a clock); the time each took is logged, not asserted: a
 * loaded machine must not fail a test.
 */
import test from 'ava';
import { performance } from 'node:perf_hooks';
import { MAX_EQUATION_LENGTH, MAX_OPERAND_LENGTH, MAX_SELECTORS_PER_OPERATOR } from '../../src/dice/index';
import { useServer } from '../helpers/server';
import type { NewUser } from './rolls.support';

const ctx = useServer(test);

const d = (type: string) => ({ type, theme: 'standard' });
const sels = (n: number, sel: string): string => Array.from({ length: n }, () => sel).join(',');

async function refused(t: import('ava').ExecutionContext, user: NewUser, body: Record<string, unknown>, code: string, path: string, message: RegExp) {
  const start = performance.now();
  const res = await user.api.post('/roll', body);
  const ms = performance.now() - start;
  t.is(res.status, 400, `${res.status}: ${res.text.slice(0, 300)}`);
  t.is(res.body.type, 'error');
  t.is(res.body.data.code, code, res.text.slice(0, 300));
  t.is(res.body.data.details[0].path, path);
  t.regex(res.body.data.message, message);
  t.log(`answered in ${ms.toFixed(0)} ms`);
  t.true(res.text.length < 2000, 'the answer does not echo the input back');
}

test('an explosion chain as long as an equation used to be is refused, and at the length limit it is refused by its selectors', async (t) => {
  const user = await ctx.server.newUser();
  let chain = '1d1000';
  while (chain.length + 3 <= 999) chain += 'e>1';
  await refused(t, user, { equation: chain }, 'validation_error', 'equation', new RegExp(`${MAX_EQUATION_LENGTH}`));
  await refused(
    t,
    user,
    { equation: chain.slice(0, MAX_EQUATION_LENGTH) },
    'invalid_equation',
    'equation',
    new RegExp(`at most ${MAX_SELECTORS_PER_OPERATOR} selectors`),
  );
  const ok = await user.api.post('/roll', { equation: `1d20${'e>19'.repeat(MAX_SELECTORS_PER_OPERATOR)}+5` });
  t.is(ok.status, 201, ok.text.slice(0, 300));
});

test('operand keys of kilobytes are refused by their length, without the key echoed in the answer', async (t) => {
  const user = await ctx.server.newUser();
  const e = sels(1000, '>1');
  await refused(
    t,
    user,
    { dice: [d('d1000')], operator: { e: { [e]: [0] } } },
    'invalid_operator',
    'operator.e',
    new RegExp(`${e.length} characters; an operand may be at most ${MAX_OPERAND_LENGTH}`),
  );
  const u = sels(750, '<-5');
  await refused(
    t,
    user,
    { dice: Array.from({ length: 100 }, () => d('d1000')), operator: { u: { [u]: [0, 1] } } },
    'invalid_operator',
    'operator.u',
    /an operand may be at most/,
  );
  await refused(
    t,
    user,
    { dice: [d('d1000')], operator: { rr: { [sels(21, '1')]: [0] } } },
    'invalid_operator',
    'operator.rr.' + sels(21, '1'),
    /at most 20 selectors/,
  );
});

test('a roll past the work budget is a 400 too_many_dice naming the operator, and the server keeps answering', async (t) => {
  const user = await ctx.server.newUser();
  const pairs = Array.from({ length: 50 }, () => [d('d10x'), d('d10')]).flat();
  const first = Array.from({ length: 50 }, (_, i) => i);
  const body = { dice: pairs, operator: { e: { [sels(20, 'l1001')]: [first, first.map((i) => 50 + i)] } } };
  await refused(t, user, body, 'too_many_dice', `operator.e.${sels(20, 'l1001')}[0]`, /more work than one roll may take/);
  const health = await fetch(`${ctx.server.url}/healthz`);
  t.is(health.status, 200);
  // The same dice with a sensible operator roll.
  const ok = await user.api.post('/roll', { dice: pairs, operator: { e: { l1: [first, first.map((i) => 50 + i)] } } });
  t.is(ok.status, 201, ok.text.slice(0, 300));
});
