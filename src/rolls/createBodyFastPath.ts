import { MAX_EQUATION_LENGTH, MAX_REQUEST_DICE } from '../dice';
import { carriedBytes, jsonBytes, MAX_CARRIED_BYTES, MAX_META_BYTES } from './limits';

/**
 * POST /roll's body checked without joi, for the bodies clients send every time: joi's walk over the
 * schema was the largest share of the route's validation CPU. It accepts only what it can prove
 * `createBody` (schema.ts) accepts unchanged, and returns the body as joi would (same keys, same values:
 * nothing here is converted, defaulted or stripped). Anything else (an unknown key, a numeric string, an
 * operator, an object face, -0, an error of any kind) answers `undefined` and goes to joi, so every
 * error answer is joi's own. test/rolls/createBodyFastPath.test.ts compares both on generated bodies.
 */

type Check = (value: unknown) => boolean;

const isString = (v: unknown): v is string => typeof v === 'string';
/** Joi.number() without conversion: finite, within the safe range, and not -0 (joi answers 0 for it). */
const isPlainNumber = (v: unknown): v is number =>
  typeof v === 'number' && Number.isFinite(v) && v <= Number.MAX_SAFE_INTEGER && v >= Number.MIN_SAFE_INTEGER && !Object.is(v, -0);
const inRange =
  (min: number, max: number): Check =>
  (v) =>
    isPlainNumber(v) && v >= min && v <= max;
/** Joi.string().min(min).max(max): joi refuses '' unless allowed, and counts UTF-16 code units. */
const stringOf =
  (min: number, max: number): Check =>
  (v) =>
    isString(v) && v.length >= Math.max(1, min) && v.length <= max;
/** An empty string, when joi allows it with `.allow('')`, or a string within `max`. */
const stringUpTo =
  (max: number): Check =>
  (v) =>
    isString(v) && v.length <= max;
const orNull =
  (check: Check): Check =>
  (v) =>
    v === null || check(v);

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  return Object.getPrototypeOf(v) === Object.prototype;
}

/** Every own key has a check and passes it (an unknown key would be stripped by joi: left to joi). */
function fieldsPass(object: Record<string, unknown>, checks: Readonly<Record<string, Check>>): boolean {
  for (const key in object) {
    if (!Object.prototype.hasOwnProperty.call(checks, key)) return false;
    const value = object[key];
    if (value === undefined || !checks[key]!(value)) return false;
  }
  return true;
}

const dieChecks: Readonly<Record<string, Check>> = {
  type: stringOf(1, 64),
  theme: stringOf(1, 100),
  // numbers only: a numeric string is converted by joi
  value: orNull(isPlainNumber),
  // a number or a string face; an object face is left to joi
  value_to_display: orNull((v) => isPlainNumber(v) || stringOf(1, 255)(v)),
  label: orNull(stringUpTo(255)),
  is_hidden: (v) => typeof v === 'boolean',
  meta: (v) => jsonBytes(v) <= MAX_META_BYTES,
};

const isDie: Check = (v) => isPlainObject(v) && typeof v.type === 'string' && fieldsPass(v, dieChecks);

const isDice: Check = (v) => {
  if (!Array.isArray(v) || v.length < 1 || v.length > MAX_REQUEST_DICE) return false;
  for (let i = 0; i < v.length; i++) if (!isDie(v[i])) return false;
  return carriedBytes(v as { label?: string | null; meta?: unknown }[]) <= MAX_CARRIED_BYTES;
};

const isWhisper: Check = (v) => {
  if (v === null) return true;
  if (!Array.isArray(v) || v.length > 100) return false;
  for (let i = 0; i < v.length; i++) if (!(Number.isInteger(v[i]) && inRange(1, 2_147_483_647)(v[i]))) return false;
  return true;
};

const bodyChecks: Readonly<Record<string, Check>> = {
  dice: isDice,
  equation: stringOf(1, MAX_EQUATION_LENGTH),
  theme: orNull(stringOf(1, 100)),
  label: orNull(stringUpTo(255)),
  external_id: orNull(stringOf(1, 255)),
  room: orNull(stringUpTo(1000)),
  whisper: isWhisper,
  direction: inRange(0, 360),
  velocity: inRange(0, 100),
  client_seed: orNull(stringUpTo(64)),
};

/** The body as joi would validate it, or undefined when only joi can say (an error, a conversion, an operator). */
export function createBodyFastPath(body: unknown): unknown {
  if (!isPlainObject(body)) return undefined;
  // exactly one of dice and equation (xor), and no operator (oxor with equation; its values are joi's to check)
  if ((body.dice === undefined) === (body.equation === undefined)) return undefined;
  return fieldsPass(body, bodyChecks) ? body : undefined;
}
