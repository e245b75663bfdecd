import Joi from 'joi';
import { pageQuery } from '../http/paging';
import { PASSCODE_PATTERN } from './codes';
import { HEX_COLOR } from './colors';
import { ROOM_NAME_MAX, USERNAME_MAX } from './create';
import { displayNameProblem, normalizeDisplayName } from '../lib/displayName';

/** Joi schemas of the room routes, compiled once. */

// Any string: a slug that cannot exist is a 404 from the loader, not a 400.
const slug = Joi.string().max(1000).required();
const notBlank = (max: number) => Joi.string().max(max).pattern(/\S/).messages({ 'string.pattern.base': '{{#label}} must not be blank' });

/** A name other participants read: normalized and checked (lib/displayName.ts); the normalized form goes on. */
const displayName = (max: number) =>
  Joi.string()
    .max(max)
    .custom((value: string, helpers) => {
      const name = normalizeDisplayName(value);
      const problem = displayNameProblem(name, max);
      return problem === null ? name : helpers.message({ custom: `{{#label}} ${problem}` });
    });

/** A passcode an owner chooses: '' or null asks for none (public) or a generated one (private). */
const chosenPasscode = Joi.string()
  .allow('', null)
  .pattern(PASSCODE_PATTERN)
  .messages({ 'string.pattern.base': '{{#label}} must be 4 to 64 characters among letters, digits and . _ ~ -' });
/** A passcode someone offers to get in: checked against the room's, so any string will do. */
const offeredPasscode = Joi.string().allow('', null).max(200);

export const slugParams = Joi.object({ slug });
export const participantParams = Joi.object({
  slug,
  participant: Joi.number().integer().min(1).max(2_147_483_647).required(),
});
export const backgroundParams = Joi.object({
  slug,
  file: Joi.string()
    .pattern(/^[0-9a-f]{64}(\.[a-z]{3,4})?$/)
    .required(),
});

export const listQuery = Joi.object(pageQuery);
export const passcodeQuery = Joi.object({ passcode: Joi.string().allow('').max(200) });

export const createBody = Joi.object({
  name: notBlank(ROOM_NAME_MAX),
  is_public: Joi.boolean(),
  passcode: chosenPasscode,
});

export const updateBody = Joi.object({
  name: notBlank(ROOM_NAME_MAX),
  is_public: Joi.boolean(),
  passcode: chosenPasscode,
  bg_file_path: Joi.string().allow(null).max(1000),
});

export const joinBody = Joi.object({ passcode: offeredPasscode });

/**
 * A dice tray (the dddice SDK's `{dieType, theme}[][]`): bounded, since every presentation of the room
 * (GET /room, RoomUpdateEvent, the presence members, rolls' embedded participants) carries every tray.
 */
export const MAX_TRAY_ROWS = 8;
export const MAX_TRAY_ROW_DICE = 12;
export const MAX_TRAY_BYTES = 1024;
// The rules of a die id and a theme id (themes/manifest/manifest.ts), which rooms do not import.
const TRAY_DIE_ID = /^[A-Za-z0-9][\w-]{0,63}$/;
const TRAY_THEME_ID = /^[a-z0-9](?:[a-z0-9_-]{0,98}[a-z0-9])?$/;

const trayDie = Joi.object({
  dieType: Joi.string()
    .max(64)
    .pattern(TRAY_DIE_ID)
    .required()
    .messages({ 'string.pattern.base': '{{#label}} must be a die id: letters, digits, "_" or "-" (at most 64), such as d20' }),
  theme: Joi.string().max(100).pattern(TRAY_THEME_ID).required().messages({
    'string.pattern.base':
      '{{#label}} must be a theme id: lower-case letters, digits, "-" and "_", starting and ending with a letter or digit, at most 100 characters',
  }),
});

const diceTray = Joi.array()
  .items(Joi.array().items(trayDie).min(1).max(MAX_TRAY_ROW_DICE))
  .max(MAX_TRAY_ROWS)
  .custom((value: unknown, helpers) =>
    Buffer.byteLength(JSON.stringify(value)) > MAX_TRAY_BYTES
      ? helpers.message({ custom: `{{#label}} must be at most ${MAX_TRAY_BYTES} bytes of JSON` })
      : value,
  );

export const participantBody = Joi.object({
  username: displayName(USERNAME_MAX),
  dice_tray: diceTray,
  color: Joi.string().pattern(HEX_COLOR).messages({ 'string.pattern.base': '{{#label}} must be a hex colour like #1a2b3c' }),
  // Sent by some clients (docs/spec.md §4.3); the caller's identity, not a passcode, decides here.
  passcode: offeredPasscode,
});
