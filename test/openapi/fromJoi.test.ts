import test from 'ava';
import Joi from 'joi';
import { asComponent, fromJoi, withNotes } from '../../src/openapi/fromJoi';
import { openApiDocument } from '../../src/openapi';
import * as rolls from '../../src/rolls/schema';
import * as rooms from '../../src/rooms/schema';
import * as shareRequests from '../../src/themes/shareRequests/schema';
import * as users from '../../src/users/schema';
import { validateSchema } from '../helpers/openapi';

/** src/openapi/fromJoi.ts: the document's request bodies are joi's schemas, converted. */

test('scalars: types, lengths, bounds, integers, patterns, formats', (t) => {
  t.deepEqual(fromJoi(Joi.string().min(2).max(5)), { type: 'string', minLength: 2, maxLength: 5 });
  t.deepEqual(fromJoi(Joi.string().length(3)), { type: 'string', minLength: 3, maxLength: 3 });
  t.deepEqual(fromJoi(Joi.string()), { type: 'string', minLength: 1 }, "joi refuses '' unless allowed");
  t.deepEqual(fromJoi(Joi.string().pattern(/^a\d+$/)), { type: 'string', minLength: 1, pattern: '^a\\d+$' });
  t.deepEqual(fromJoi(Joi.string().pattern(/a/).pattern(/b/)), { type: 'string', minLength: 1, allOf: [{ pattern: 'a' }, { pattern: 'b' }] });
  t.deepEqual(fromJoi(Joi.string().guid()), { type: 'string', format: 'uuid', minLength: 1 });
  t.deepEqual(fromJoi(Joi.string().isoDate()), { type: 'string', format: 'date-time', minLength: 1 });
  t.deepEqual(fromJoi(Joi.number().integer().min(1).max(9)), { type: 'integer', minimum: 1, maximum: 9 });
  t.deepEqual(fromJoi(Joi.number()), { type: 'number' });
  t.deepEqual(fromJoi(Joi.boolean()), { type: 'boolean' });
  t.deepEqual(fromJoi(Joi.any()), {});
});

test('allow(): null widens the type; other values that the type refuses become an enum beside it', (t) => {
  t.deepEqual(fromJoi(Joi.string().max(3).allow(null)), { type: ['string', 'null'], minLength: 1, maxLength: 3 });
  t.deepEqual(fromJoi(Joi.string().max(3).allow('', null)), { type: ['string', 'null'], maxLength: 3 }, "'' already fits once allowed");
  t.deepEqual(fromJoi(Joi.string().pattern(/^x+$/).allow('', null)), { anyOf: [{ type: 'string', pattern: '^x+$' }, { enum: ['', null] }] });
  t.deepEqual(fromJoi(Joi.alternatives(Joi.number(), Joi.string()).allow(null)), {
    anyOf: [{ type: 'number' }, { type: 'string', minLength: 1 }, { type: 'null' }],
  });
});

test("conditional('.key', {is: exist, then, otherwise}): an object with the key is `then`, one without is `otherwise`", (t) => {
  const schema = Joi.alternatives().conditional('.id', {
    is: Joi.exist(),
    then: Joi.object({ id: Joi.number().required() }),
    otherwise: Joi.object({ name: Joi.string().required() }),
  });
  const has = { type: 'object', required: ['id'] };
  t.deepEqual(fromJoi(schema), {
    anyOf: [
      { allOf: [has, { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] }] },
      { allOf: [{ not: has }, { type: 'object', properties: { name: { type: 'string', minLength: 1 } }, required: ['name'] }] },
    ],
  });
  t.throws(() => fromJoi(Joi.alternatives().conditional('.id', { is: 5, then: Joi.number(), otherwise: Joi.string() })), { message: /conditional/ });
});

test('valid() is an enum; default, description, notes and examples are carried over', (t) => {
  t.deepEqual(fromJoi(Joi.string().valid('a', 'b')), { enum: ['a', 'b'] });
  t.deepEqual(fromJoi(Joi.string().valid('a', 'b').default('a').description('Which one.').note('Case matters.').example('b')), {
    enum: ['a', 'b'],
    description: 'Which one. Case matters.',
    examples: ['b'],
    default: 'a',
  });
  t.false('default' in fromJoi(Joi.string().default(() => 'x')), 'a computed default has no JSON form');
});

test('objects and arrays: required keys, nested items, counts, key patterns, forbidden keys', (t) => {
  const schema = Joi.object({
    id: Joi.number().integer().required(),
    tags: Joi.array().items(Joi.string().max(8)).min(1).max(4),
    pair: Joi.array().items(Joi.number(), Joi.string()).length(2),
    secret: Joi.any().forbidden(),
    map: Joi.object().pattern(Joi.string().max(4), Joi.boolean()).max(3),
  }).min(1);
  t.deepEqual(fromJoi(schema), {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      tags: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 8 }, minItems: 1, maxItems: 4 },
      pair: { type: 'array', items: { anyOf: [{ type: 'number' }, { type: 'string', minLength: 1 }] }, minItems: 2, maxItems: 2 },
      map: { type: 'object', patternProperties: { '^[\\s\\S]{1,4}$': { type: 'boolean' } }, maxProperties: 3 },
    },
    required: ['id'],
    minProperties: 1,
  });
});

test('object dependencies: or, xor and oxor', (t) => {
  const keys = { a: Joi.number(), b: Joi.number(), c: Joi.number() };
  t.deepEqual(fromJoi(Joi.object(keys).or('a', 'b')).anyOf, [{ required: ['a'] }, { required: ['b'] }]);
  t.deepEqual(fromJoi(Joi.object(keys).xor('a', 'b')).oneOf, [{ required: ['a'] }, { required: ['b'] }]);
  t.deepEqual(fromJoi(Joi.object(keys).oxor('a', 'b')).not, { required: ['a', 'b'] });
  t.deepEqual(fromJoi(Joi.object(keys).xor('a', 'b').oxor('b', 'c')).allOf, [
    { oneOf: [{ required: ['a'] }, { required: ['b'] }] },
    { not: { required: ['b', 'c'] } },
  ]);
});

test('what has no JSON Schema form here throws instead of being dropped', (t) => {
  t.throws(() => fromJoi(Joi.string().email()), { message: /string rule "email"/ });
  t.throws(() => fromJoi(Joi.date()), { message: /joi type "date"/ });
  t.throws(() => fromJoi(Joi.string().pattern(/a/i)), { message: /flags/ });
  t.throws(() => fromJoi(Joi.array().unique()), { message: /array rule "unique"/ });
  t.throws(() => fromJoi(Joi.object().pattern(Joi.number(), Joi.any())), { message: /object pattern/ });
  t.deepEqual(fromJoi(Joi.object().pattern(/^x/, Joi.number())), { type: 'object', patternProperties: { '^x': { type: 'number' } } });
  // Custom rules only run code: they are left to the description, not refused.
  t.deepEqual(fromJoi(Joi.string().custom((v) => v)), { type: 'string', minLength: 1 });
});

test('withNotes adds words by path and refuses a path that is not there; asComponent takes a sub-schema out', (t) => {
  const body = fromJoi(Joi.object({ rolls: Joi.array().items(Joi.object({ uuid: Joi.string() })) }));
  withNotes(body, { '': { description: 'All' }, 'rolls[].uuid': { description: 'A uuid' } });
  t.is(body.description, 'All');
  t.is((body as any).properties.rolls.items.properties.uuid.description, 'A uuid');
  t.throws(() => withNotes(body, { 'rolls[].nope': { description: 'x' } }), { message: /no rolls\[\]\.nope/ });
  const components: Record<string, any> = {};
  asComponent(body, 'rolls[]', 'Item', components);
  t.deepEqual((body as any).properties.rolls.items, { $ref: '#/components/schemas/Item' });
  t.is(components.Item.properties.uuid.description, 'A uuid');
  const other = fromJoi(Joi.object({ list: Joi.array().items(Joi.object({ id: Joi.number() })) }));
  t.throws(() => asComponent(other, 'list[]', 'Item', components), { message: /two different schemas/ });
});

/**
 * The converted body and joi agree on what they accept: each value is checked by the route's joi
 * schema (as src/http/validate.ts runs it on bodies) and by the document's schema for that body.
 */
const doc = openApiDocument();
const root = doc as unknown as Record<string, unknown>;
const bodyOf = (path: string, method: string) => (doc.paths as any)[path][method].requestBody.content['application/json'].schema;
const u = '6f1c2a4e-8d3b-4c5a-9e7f-0a1b2c3d4e5f';
const cases: Array<[string, string, Joi.Schema, unknown[]]> = [
  [
    '/api/1.0/user',
    'patch',
    users.updateUserBody,
    [{}, { name: 'Al' }, { name: '' }, { name: ' ' }, { name: 'a\u0007' }, { name: 'x'.repeat(256) }, { username: 'a.b-c' }, { username: 'a b' }, { name: 5 }],
  ],
  ['/api/1.0/user/key', 'post', users.createKeyBody, [{}, { name: 'k' }, { name: '' }, { name: 'x'.repeat(65) }]],
  [
    '/api/1.0/room',
    'post',
    rooms.createBody,
    [
      {},
      { name: 'T', is_public: false },
      { name: '   ' },
      { passcode: '' },
      { passcode: null },
      { passcode: 'abc' },
      { passcode: 'abcd' },
      { passcode: 'ab cd' },
      { is_public: 'yes' },
    ],
  ],
  ['/api/1.0/room/{slug}', 'patch', rooms.updateBody, [{ bg_file_path: null }, { bg_file_path: '' }, { name: 'x'.repeat(256) }, { passcode: 'good-one' }]],
  ['/api/1.0/room/{slug}/participant', 'post', rooms.joinBody, [{}, { passcode: '' }, { passcode: null }, { passcode: 'x'.repeat(201) }, { passcode: 3 }]],
  [
    '/api/1.0/room/{slug}/participant/{participant}',
    'patch',
    rooms.participantBody,
    [{ color: '#a1B2c3' }, { color: 'red' }, { color: '' }, { username: 'x'.repeat(65) }],
  ],
  [
    '/api/1.0/roll',
    'post',
    rolls.createBody,
    [
      {},
      { dice: [{ type: 'd6' }] },
      { equation: '1d6' },
      { dice: [{ type: 'd6' }], equation: '1d6' },
      { equation: '1d6', operator: { k: 'h1' } },
      { dice: [] },
      { dice: [{ type: '' }] },
      { dice: [{ type: 'd6', value_to_display: { src: 'a.png' } }] },
      { dice: [{ type: 'd6', value_to_display: {} }] },
      { equation: '1d6', room: null },
      { equation: '1d6', room: '' },
      { equation: '1d6', whisper: [1, 2] },
      { equation: '1d6', whisper: [0] },
      { equation: '1d6', direction: 361 },
      { dice: [{ type: 'd6' }], operator: { k: 'h1' } },
      { dice: [{ type: 'd6' }], operator: { ['x'.repeat(17)]: 1 } },
      { dice: [{ type: 'd6' }], operator: { k: true } },
      { dice: [{ type: 'd6' }], operator: { ['x'.repeat(17)]: true } },
      { dice: [{ type: 'd6' }], operator: null },
      { equation: '1d6', label: '' },
      { equation: '1d6', external_id: '' },
    ],
  ],
  [
    '/api/1.0/roll',
    'patch',
    rolls.bulkBody,
    [
      { rolls: [] },
      { rolls: [{ uuid: u, dice: [{ uuid: u, is_hidden: true }] }] },
      { rolls: [{ uuid: 'nope', dice: [{ uuid: u }] }] },
      { rolls: [{ uuid: u, dice: [] }] },
    ],
  ],
  [
    '/api/1.0/roll/{uuid}',
    'patch',
    rolls.updateBody,
    [
      { dice: [{ uuid: u, is_cleared: true }] },
      { dice: [{ is_hidden: true }] },
      {},
      { dice: [{ uuid: u }], room: null },
      { dice: [{ type: 'd6', theme: 'standard' }] },
      { dice: [{ uuid: u, type: 'd6' }] },
      { dice: [{ uuid: 'x', type: 'd6' }] },
      { dice: [{ type: '' }] },
      { dice: [{ type: 'd6', value: 'x' }] },
      { dice: [{ uuid: u, is_hidden: 'x', type: 'd6' }] },
      {
        dice: [
          { uuid: u, is_hidden: true },
          { type: 'mod', value: 2 },
        ],
      },
      { dice: [{ type: 'd6', meta: { anything: [1] } }] },
      { dice: [{ uuid: u, meta: { position: { x: 1 } } }] },
      { dice: [5] },
    ],
  ],
  ['/api/1.0/room/{slug}/roll', 'patch', rolls.roomUpdateBody, [{ dice: { is_cleared: true } }, { dice: {} }, {}, { dice: { is_hidden: 'no' } }]],
  [
    '/api/1.0/share-request',
    'post',
    shareRequests.createBody,
    [
      { theme: 'oak' },
      {},
      { theme: '' },
      { theme: 'oak', max_uses: 0 },
      { theme: 'oak', max_uses: null, expires_at: null },
      { theme: 'oak', expires_at: 'soon' },
    ],
  ],
  ['/api/1.0/share-request/{id}', 'patch', shareRequests.updateBody, [{}, { max_uses: 3 }, { expires_at: null }, { max_uses: 1.5 }]],
];

for (const [path, method, schema, values] of cases) {
  test(`${method.toUpperCase()} ${path}: the document's body accepts what joi accepts and refuses what it refuses`, (t) => {
    const body = bodyOf(path, method);
    for (const value of values) {
      const joiAccepts = !schema.validate(value, { abortEarly: false, convert: false, stripUnknown: true }).error;
      const documentAccepts = validateSchema(body, value, root).length === 0;
      t.is(documentAccepts, joiAccepts, `${JSON.stringify(value)}: joi ${joiAccepts ? 'accepts' : 'refuses'} it`);
    }
  });
}
