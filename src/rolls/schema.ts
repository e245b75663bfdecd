import Joi from 'joi';
import { MAX_EQUATION_LENGTH, MAX_REQUEST_DICE, MAX_ROLL_VALUES } from '../dice';
import { carriedBytes, carriedTooLargeMessage, jsonBytes, MAX_CARRIED_BYTES, MAX_FACE_BYTES, MAX_META_BYTES, MAX_OPERATOR_BYTES } from './limits';

/** Joi schemas of the roll routes, compiled once. The dice engine checks what only it can (faces, operators). */

/** What a roll stores of its caller's data is bounded (limits.ts): each value is sent to every member of the room. */
export { MAX_CARRIED_BYTES, MAX_FACE_BYTES, MAX_META_BYTES, MAX_OPERATOR_BYTES };
export const MAX_BULK_ROLLS = 100;
export const HISTORY_DEFAULT_LIMIT = 20;
export const HISTORY_MAX_LIMIT = 100;

// Any string: a slug that cannot exist is a 404 from the loader, not a 400.
const slug = Joi.string().max(1000);
const themeId = Joi.string().min(1).max(100);
const label = Joi.string().allow('', null).max(255);
const uuid = Joi.string().guid().messages({ 'string.guid': '{{#label}} must be a uuid' });

/** A custom rule: at most `max` bytes of JSON. */
const atMostJsonBytes = (max: number) => (value: unknown, helpers: Joi.CustomHelpers) =>
  jsonBytes(value) > max ? helpers.message({ custom: `{{#label}} must be at most ${max} bytes of JSON` }) : value;

const face = Joi.alternatives(
  Joi.number(),
  Joi.string().max(255),
  Joi.object({ src: Joi.string().max(1000).required() })
    .unknown(true)
    .custom(atMostJsonBytes(MAX_FACE_BYTES)),
).messages({ 'alternatives.match': '{{#label}} must be a number, a string or an object with src' });

const NUMERIC_STRING = /^\s*[+-]?\d{1,12}(\.\d{1,15})?\s*$/;

const meta = Joi.any().custom(atMostJsonBytes(MAX_META_BYTES));

const die = Joi.object({
  type: Joi.string().min(1).max(64).required(),
  theme: themeId,
  // dddice's clients send a face's number as a number or as a numeric string ("15"): both are that number.
  value: Joi.alternatives(
    Joi.number(),
    Joi.string()
      .max(32)
      .pattern(NUMERIC_STRING)
      .custom((v: string) => Number(v)),
  )
    .allow(null)
    .messages({
      'alternatives.types': '{{#label}} must be a number (or a numeric string such as "15")',
      'string.pattern.base': '{{#label}} must be a number (or a numeric string such as "15")',
    }),
  value_to_display: face.allow(null),
  label,
  is_hidden: Joi.boolean(),
  meta,
});

/**
 * d20's and the dddice SDK's operator keys, and `groups` (a list of roll groups); values are checked by the
 * engine (it names the bad selector).
 */
const operator = Joi.object()
  .pattern(
    Joi.string().max(16),
    Joi.alternatives(Joi.string().allow('').max(200), Joi.number(), Joi.object().max(MAX_REQUEST_DICE), Joi.array().max(MAX_REQUEST_DICE)),
  )
  .max(20)
  // Stored with the roll and written into its equation: sent to every member of the room with each event.
  .custom(atMostJsonBytes(MAX_OPERATOR_BYTES))
  .allow(null);

/** Every value rolled for a die carries its label and meta: their sum is bounded (again after rolling: create.ts). */
const dice = Joi.array()
  .items(die)
  .min(1)
  .max(MAX_REQUEST_DICE)
  .custom((value: Array<{ label?: string | null; meta?: unknown }>, helpers) => {
    const bytes = carriedBytes(value);
    return bytes > MAX_CARRIED_BYTES ? helpers.message({ custom: carriedTooLargeMessage(bytes, false) }) : value;
  });

export const createBody = Joi.object({
  dice,
  equation: Joi.string().min(1).max(MAX_EQUATION_LENGTH),
  theme: themeId.allow(null),
  operator,
  label,
  external_id: Joi.string().min(1).max(255).allow(null),
  room: slug.allow(null, ''),
  whisper: Joi.array().items(Joi.number().integer().min(1).max(2_147_483_647)).max(100).allow(null),
  direction: Joi.number().min(0).max(360),
  velocity: Joi.number().min(0).max(100),
  /** the roller's seed for the fairness draws (docs/fairness.md): the board and the typed client send 16 random bytes in hex */
  client_seed: Joi.string().max(64).allow(null, ''),
})
  .xor('dice', 'equation')
  .oxor('equation', 'operator')
  .messages({
    'object.missing': 'A roll needs either dice or an equation.',
    'object.xor': 'Send either dice or an equation, not both.',
    'object.oxor': 'An equation carries its own operators: send operator only with dice.',
  });

/**
 * Where a die was put down on the board, as the dddice renderer saves it at the end of a drag:
 * `x` and `z` are percentages of the board's width and depth. Kept to two decimals; a little off the
 * board is allowed (a die can be dropped on the rail), nonsense is not.
 */
export const POSITION_LIMIT = 1000;
const coordinate = Joi.number().min(-POSITION_LIMIT).max(POSITION_LIMIT);
const position = Joi.object({ x: coordinate.required(), z: coordinate.required(), y: coordinate }).unknown(false);

const dieChange = Joi.object({
  uuid: uuid.required(),
  is_hidden: Joi.boolean(),
  is_visible: Joi.boolean(),
  is_cleared: Joi.boolean(),
  // Only the position is taken from a change's meta; the rest of meta is the roll request's and stays.
  meta: Joi.object({ position }),
});

const dieChanges = Joi.array().items(dieChange).min(1).max(MAX_ROLL_VALUES).required();

/**
 * PATCH /roll/{uuid}'s entries: a die of the roll (`uuid`) and its new flags, or, without a `uuid`, a die
 * to throw and add to the roll, as POST /roll takes one (Pathbuilder 2e adds damage dice to the last roll).
 */
const dieChangeOrAddition = Joi.alternatives().conditional('.uuid', {
  is: Joi.exist(),
  then: dieChange,
  otherwise: die.keys({
    type: Joi.string()
      .min(1)
      .max(64)
      .required()
      .messages({ 'any.required': '{{#label}} is required: give a die to add its type, or a die of the roll its uuid' }),
  }),
});

/** `room` is accepted and ignored: real clients send the roll's room along (docs/api/rolls.md). */
export const updateBody = Joi.object({
  dice: Joi.array()
    .items(dieChangeOrAddition)
    .min(1)
    .max(MAX_ROLL_VALUES)
    .required()
    .custom((value: Array<{ uuid?: string; label?: string | null; meta?: unknown }>, helpers) => {
      const bytes = carriedBytes(value.filter((d) => d.uuid === undefined));
      return bytes > MAX_CARRIED_BYTES ? helpers.message({ custom: carriedTooLargeMessage(bytes, false) }) : value;
    }),
  room: slug.allow(null, ''),
});

export const bulkBody = Joi.object({
  rolls: Joi.array()
    .items(Joi.object({ uuid: uuid.required(), dice: dieChanges, room: slug.allow(null, '') }))
    .min(1)
    .max(MAX_BULK_ROLLS)
    .required(),
});

export const roomUpdateBody = Joi.object({
  dice: Joi.object({ is_hidden: Joi.boolean(), is_visible: Joi.boolean(), is_cleared: Joi.boolean() })
    .or('is_hidden', 'is_visible', 'is_cleared')
    .required()
    .messages({ 'object.missing': '{{#label}} must set at least one of is_hidden, is_visible and is_cleared' }),
});

/**
 * Whose dice PATCH /room/{slug}/roll changes: `*` (every participant's) or a participant id; the caller's
 * own without it. The dddice SDK writes it `?participant=*` (room.updateRolls(slug, dice, '*')).
 */
export const roomUpdateQuery = Joi.object({
  participant: Joi.alternatives(Joi.string().valid('*'), Joi.number().integer().min(1).max(2_147_483_647)).messages({
    'alternatives.match': '{{#label}} must be * (every participant) or a participant id',
  }),
});

/** A roll's uuid in the path: any string (one that is not a uuid is simply not found). */
export const uuidParams = Joi.object({ uuid: Joi.string().max(1000).required() });
export const slugParams = Joi.object({ slug: slug.required() });

export const historyQuery = Joi.object({
  before: uuid,
  external_id: Joi.string().min(1).max(255),
  limit: Joi.number().integer().min(1).max(HISTORY_MAX_LIMIT).default(HISTORY_DEFAULT_LIMIT),
});

export const clearQuery = Joi.object({ room: slug.min(1).required() });
