import Joi from 'joi';

/** Joi schemas of the user routes, compiled once. */

const NO_CONTROL = /^[^\u0000-\u001f\u007f]*$/;
const text = (max: number) =>
  Joi.string()
    .min(1)
    .max(max)
    .pattern(/\S/, 'not blank')
    .pattern(NO_CONTROL, 'no control characters')
    .messages({ 'string.pattern.name': '{{#label}} must not be blank or contain control characters' });

/** As the operators' CLI has always required (scripts/cli.ts). */
export const USERNAME_PATTERN = /^[\w.-]{1,64}$/;

export const updateUserBody = Joi.object({
  name: text(255),
  username: Joi.string()
    .pattern(USERNAME_PATTERN)
    .messages({ 'string.pattern.base': '{{#label}} must be 1 to 64 letters, digits, dots, dashes or underscores' }),
});

export const createKeyBody = Joi.object({ name: text(64) });

export const keyParams = Joi.object({
  prefix: Joi.string()
    .pattern(/^dk_[\w-]{8}$/)
    .required()
    .messages({ 'string.pattern.base': '{{#label}} must be a key prefix as GET /api/1.0/user/key lists it (dk_ and 8 characters)' }),
});
