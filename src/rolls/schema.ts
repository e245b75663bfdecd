import Joi from 'joi';
import { MAX_EQUATION_LENGTH, MAX_REQUEST_DICE, MAX_ROLL_VALUES } from '../dice';

/** Joi schemas of the roll routes, compiled once. The dice engine checks what only it can (faces, operators). */

/** A die's `meta`: caller data kept with the die, bounded so a roll stays a small row set. */
export const MAX_META_BYTES = 2048;
export const MAX_BULK_ROLLS = 100;
export const HISTORY_DEFAULT_LIMIT = 20;
export const HISTORY_MAX_LIMIT = 100;

// Any string: a slug that cannot exist is a 404 from the loader, not a 400.
const slug = Joi.string().max(1000);
const themeId = Joi.string().min(1).max(100);
const label = Joi.string().allow('', null).max(255);
const uuid = Joi.string().guid().messages({ 'string.guid': '{{#label}} must be a uuid' });

const face = Joi.alternatives(
  Joi.number(),
  Joi.string().max(255),
  Joi.object({ src: Joi.string().max(1000).required() }).unknown(true),
).messages({ 'alternatives.match': '{{#label}} must be a number, a string or an object with src' });

const meta = Joi.any().custom((value, helpers) => {
  if (value === null) return value;
  const size = Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
  return size > MAX_META_BYTES ? helpers.message({ custom: `{{#label}} must be at most ${MAX_META_BYTES} bytes of JSON` }) : value;
});

const die = Joi.object({
  type: Joi.string().min(1).max(64).required(),
  theme: themeId,
  value: Joi.number().allow(null),
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
  .pattern(Joi.string().max(16), Joi.alternatives(Joi.string().max(200), Joi.number(), Joi.object().max(MAX_REQUEST_DICE), Joi.array().max(MAX_REQUEST_DICE)))
  .max(20)
  .allow(null);

export const createBody = Joi.object({
  dice: Joi.array().items(die).min(1).max(MAX_REQUEST_DICE),
  equation: Joi.string().min(1).max(MAX_EQUATION_LENGTH),
  theme: themeId.allow(null),
  operator,
  label,
  external_id: Joi.string().min(1).max(255).allow(null),
  room: slug.allow(null, ''),
  whisper: Joi.array().items(Joi.number().integer().min(1).max(2_147_483_647)).max(100).allow(null),
  direction: Joi.number().min(0).max(360),
  velocity: Joi.number().min(0).max(100),
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

/** `room` is accepted and ignored: real clients send the roll's room along (docs/api/rolls.md). */
export const updateBody = Joi.object({ dice: dieChanges, room: slug.allow(null, '') });

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

/** A roll's uuid in the path: any string (one that is not a uuid is simply not found). */
export const uuidParams = Joi.object({ uuid: Joi.string().max(1000).required() });
export const slugParams = Joi.object({ slug: slug.required() });

export const historyQuery = Joi.object({
  before: uuid,
  limit: Joi.number().integer().min(1).max(HISTORY_MAX_LIMIT).default(HISTORY_DEFAULT_LIMIT),
});

export const clearQuery = Joi.object({ room: slug.min(1).required() });
