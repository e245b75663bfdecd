/**
 * POST /roll's body fast path (src/rolls/createBodyFastPath.ts) against joi's `createBody`: whatever the
 * fast path accepts, joi accepts with the same value (same keys, same values, nothing converted); what it
 * does not accept goes to joi, so error answers are joi's by construction. The generated bodies sit near
 * the edges: lengths around each bound, numbers at the range ends and beyond (-0, unsafe integers),
 * numeric strings, nulls and empty strings where joi allows or refuses them, unknown keys, both or
 * neither of dice and equation, large meta and labels.
 *
 * CREATE_BODY_FUZZ_COUNT=n scales the generated cases (default 3000); CREATE_BODY_FUZZ_SEED=n replays a run.
 */
import test from 'ava';
import fc from 'fast-check';
import { createBodyFastPath } from '../../src/rolls/createBodyFastPath';
import { createBody } from '../../src/rolls/schema';

const NUM_RUNS = Number(process.env.CREATE_BODY_FUZZ_COUNT || 3000);
const SEED = process.env.CREATE_BODY_FUZZ_SEED ? Number(process.env.CREATE_BODY_FUZZ_SEED) : undefined;
const BODY_OPTIONS = { abortEarly: false, convert: false, stripUnknown: true } as const;

/** Mostly strings within [min, max] (joi refuses '' unless allowed), else one past a bound or odd text. */
const stringWithin = (min: number, max: number) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.string({ minLength: min, maxLength: Math.min(max, 12) }) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(min - 1, min, max, max + 1)
        .filter((n) => n >= 0)
        .map((n) => 'x'.repeat(n)),
    },
    { weight: 1, arbitrary: fc.constantFrom('', ' ', '😀'.repeat(Math.ceil(max / 2)), 'é'.repeat(max)) },
  );
/** Mostly numbers within [min, max], else the edges and beyond (-0, halves, unsafe integers, any double). */
const numberWithin = (min: number, max: number) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.oneof(fc.integer({ min, max }), fc.double({ min, max, noNaN: true })) },
    { weight: 1, arbitrary: fc.constantFrom(min, max, min - 0.5, max + 0.5, -0, Number.MAX_SAFE_INTEGER + 2, -1e300) },
    { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  );
const junk = fc.oneof(fc.constant(null), fc.boolean(), fc.constant([]), fc.constant({}), fc.constantFrom('15', ' 15 ', '1e3', ''));
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ weight: 30, arbitrary: arb }, { weight: 1, arbitrary: junk });
/** Present in about one body in eight (undefined is dropped below, as JSON would). */
const rare = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ weight: 7, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });
/** The object as JSON.parse would give it: no undefined values. */
const defined = <T extends object>(o: T): T => JSON.parse(JSON.stringify(o)) as T;

const meta = fc.oneof(
  fc.constant(null),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.oneof(fc.integer(), fc.string({ maxLength: 8 })), { maxKeys: 4 }),
  fc.constantFrom(1200, 2030, 2040, 2050).map((n) => ({ note: 'm'.repeat(n) })),
  fc.constantFrom('text', 5, true, [1, 2]),
);

const die = fc
  .record(
    {
      type: maybe(stringWithin(1, 64)),
      theme: maybe(stringWithin(1, 100)),
      value: maybe(fc.oneof(numberWithin(-5, 30), fc.constantFrom('15', ' 7 ', '1.5', 'x'))),
      value_to_display: maybe(fc.oneof(numberWithin(-5, 30), stringWithin(0, 255), fc.constant({ src: 'd20.png' }), fc.constant({}))),
      label: maybe(fc.oneof(stringWithin(0, 255), fc.constant(null), fc.constant('l'.repeat(200)))),
      is_hidden: maybe(fc.boolean()),
      meta,
      extra: rare(fc.string({ maxLength: 3 })),
    },
    { requiredKeys: [] },
  )
  .map(defined);

const body = fc
  .record(
    {
      dice: maybe(fc.array(die, { minLength: 0, maxLength: 6 })),
      equation: maybe(stringWithin(1, 500)),
      theme: maybe(fc.oneof(stringWithin(1, 100), fc.constant(null))),
      operator: rare(fc.oneof(fc.constant(null), fc.constant({ k: 'h1' }), fc.constant({}))),
      label: maybe(stringWithin(0, 255)),
      external_id: maybe(fc.oneof(stringWithin(1, 255), fc.constant(null))),
      room: maybe(fc.oneof(stringWithin(0, 1000), fc.constant(null))),
      whisper: maybe(fc.oneof(fc.array(fc.oneof(fc.integer({ min: -1, max: 3 }), numberWithin(1, 2_147_483_647)), { maxLength: 102 }), fc.constant(null))),
      direction: maybe(numberWithin(0, 360)),
      velocity: maybe(numberWithin(0, 100)),
      client_seed: maybe(fc.oneof(stringWithin(0, 64), fc.constant(null))),
      unknown_field: rare(fc.string({ maxLength: 3 })),
    },
    { requiredKeys: [] },
  )
  .map(defined);

test('whatever the fast path accepts, joi accepts with the same value', (t) => {
  let accepted = 0;
  fc.assert(
    fc.property(body, (generated) => {
      const fast = createBodyFastPath(structuredClone(generated));
      if (fast === undefined) return;
      accepted++;
      const { error, value } = createBody.validate(structuredClone(generated), BODY_OPTIONS);
      t.is(error, undefined, JSON.stringify(generated).slice(0, 300));
      t.deepEqual(fast, value);
    }),
    { numRuns: NUM_RUNS, seed: SEED },
  );
  t.log(`${accepted} of ${NUM_RUNS} generated bodies took the fast path`);
  t.true(accepted > 0);
});

test('the bodies clients send take the fast path unchanged', (t) => {
  const bodies: unknown[] = [
    {
      dice: [
        { type: 'd6', theme: 'standard' },
        { type: 'd20', theme: 'standard' },
      ],
      room: 'abc',
    },
    { equation: '1d20+5', room: '', label: 'attack', client_seed: '00112233445566778899aabbccddeeff' },
    { dice: [{ type: 'd20', theme: 'standard', value: 15, label: null, is_hidden: false, meta: { a: 1 } }], whisper: [1, 2], direction: 12.5, velocity: 3 },
    { dice: [{ type: 'd6', value_to_display: 'six' }], theme: null, external_id: null, room: null, client_seed: null },
  ];
  for (const b of bodies) {
    const { error, value } = createBody.validate(structuredClone(b), BODY_OPTIONS);
    t.is(error, undefined);
    t.deepEqual(createBodyFastPath(structuredClone(b)), value);
  }
});

test('what only joi can answer is left to joi', (t) => {
  const bodies: unknown[] = [
    { dice: [{ type: 'd20', value: '15' }] }, // converted to 15
    { dice: [{ type: 'd20' }], operator: { k: 'h1' } },
    { dice: [{ type: 'd20', extra: 1 }] }, // stripped
    { dice: [{ type: 'd20' }], direction: -0 }, // answered as 0
    { dice: [{ type: 'd20' }], equation: '1d20' },
    {},
    [],
    { dice: [] },
  ];
  for (const b of bodies) t.is(createBodyFastPath(b), undefined, JSON.stringify(b));
});
