import Joi from 'joi';
import { pageQuery } from '../http/paging';
import { PASSCODE_PATTERN } from './codes';
import { HEX_COLOR } from './colors';
import { ROOM_NAME_MAX, USERNAME_MAX } from './create';
import { displayNameProblem, normalizeDisplayName } from '../lib/displayName';

/** Joi schemas of the room routes, compiled once. */

// Any string: a slug that cannot exist is a 404 from the loader, not a 400.
const slug = Joi.string().max(1000).required();
const notBlank = (max: number) =>
  Joi.string().max(max).pattern(/\S/).messages({ 'string.pattern.base': '{{#label}} must not be blank' });

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
  file: Joi.string().pattern(/^[0-9a-f]{64}(\.[a-z]{3,4})?$/).required(),
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

export const participantBody = Joi.object({
  username: displayName(USERNAME_MAX),
  color: Joi.string().pattern(HEX_COLOR).messages({ 'string.pattern.base': '{{#label}} must be a hex colour like #1a2b3c' }),
  // Sent by some clients (spec 4.3); the caller's identity, not a passcode, decides here.
  passcode: offeredPasscode,
});
