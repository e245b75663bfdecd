import test from 'ava';
import { useServer } from '../helpers/server';
import { storedRollCount } from './rolls.support';

/**
 * Operator keys looked up in object literals would let `constructor` and `__proto__` match built-in
 * properties: `{"constructor": "h1"}` would be a 201 with "function Object() { [native code] }" in the
 * stored equation. Keys are the request's: only known operators, as own keys.
 */
const ctx = useServer(test);

const two = [
  { type: 'd6', theme: 'standard' },
  { type: 'd6', theme: 'standard' },
];

/** The JSON body as written, so that `__proto__` arrives as a key (JSON.stringify of an object cannot say it). */
function rawRoll(api: Awaited<ReturnType<typeof ctx.server.newUser>>['api'], json: string) {
  return api.post('/roll', undefined, { raw: json, headers: { 'content-type': 'application/json' } });
}

for (const key of ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf']) {
  test(`operator key "${key}" is a 400 naming the key, and nothing is stored`, async (t) => {
    const { api, user } = await ctx.server.newUser();
    const externalId = `own-keys-${key}`;
    const res = await rawRoll(api, `{"dice": ${JSON.stringify(two)}, "operator": {${JSON.stringify(key)}: "h1"}, "external_id": "${externalId}"}`);
    t.is(res.status, 400, res.text);
    t.is(res.body.type, 'error');
    // __proto__ is refused in any JSON body (http/jsonShape.ts); the others by the dice engine
    t.is(res.body.data.code, key === '__proto__' ? 'validation_error' : 'invalid_operator');
    t.is(res.body.data.details[0].path, `operator.${key}`);
    t.false(res.text.includes('native code'));
    t.is(await storedRollCount(user.uuid), 0, 'nothing was stored');
    const again = await api.post('/roll', { dice: two, external_id: externalId });
    t.is(again.status, 201);
    t.is(again.body.data.equation, '2d6');
  });
}

test('round "constructor" or "__proto__" is a 400, not a rounding mode', async (t) => {
  const { api } = await ctx.server.newUser();
  for (const mode of ['constructor', '__proto__', 'toString']) {
    const res = await api.post('/roll', { dice: two, operator: { round: mode } });
    t.is(res.status, 400, mode);
    t.is(res.body.data.code, 'invalid_operator');
    t.is(res.body.data.details[0].path, 'operator.round');
  }
});

test('a selector operand named like a built-in property, in the object form, is a 400 naming it', async (t) => {
  const { api } = await ctx.server.newUser();
  for (const operand of ['__proto__', 'constructor']) {
    const res = await rawRoll(api, `{"dice": ${JSON.stringify(two)}, "operator": {"k": {"${operand}": [0, 1]}}}`);
    t.is(res.status, 400, res.text);
    t.is(res.body.data.code, operand === '__proto__' ? 'validation_error' : 'invalid_operator');
    t.is(res.body.data.details[0].path, `operator.k.${operand}`);
  }
});

test('known operators still work beside the refusals: {"k": "h1"} keeps one die', async (t) => {
  const { api } = await ctx.server.newUser();
  const res = await api.post('/roll', { dice: two, operator: { k: 'h1' } });
  t.is(res.status, 201);
  t.is(res.body.data.equation, '2d6kh1');
});
