import Joi from 'joi';
import { ValidationError } from '../errors';
import { USERNAME_PATTERN } from '../users/schema';
import { PASSWORD_MAX } from './passwords';

/**
 * The account forms' fields (application/x-www-form-urlencoded), compiled once. Unknown fields are
 * dropped (the CSRF token is checked before). Password lengths for new passwords are checked by
 * policy.ts, so a sign-in with a too-short password is "wrong", not a hint about the rules.
 */

const username = Joi.string().trim().pattern(USERNAME_PATTERN).required().messages({
  'string.pattern.base': 'Username must be 1 to 64 letters, digits, dots, dashes or underscores.',
  'string.empty': 'Enter a username.',
  'any.required': 'Enter a username.',
});
const password = Joi.string()
  .max(PASSWORD_MAX)
  .required()
  .messages({ 'string.empty': 'Enter a password.', 'any.required': 'Enter a password.', 'string.max': `Passwords are at most ${PASSWORD_MAX} characters.` });

const form = (keys: Record<string, Joi.Schema>) => Joi.object(keys).options({ stripUnknown: true, abortEarly: true });

export const credentialsForm = form({ username, password });
export const claimForm = form({ username, password, key: Joi.string().max(200).allow('').default('') });
export const createKeyForm = form({
  label: Joi.string()
    .trim()
    .min(1)
    .max(64)
    .pattern(/^[^\u0000-\u001f\u007f]*$/)
    .required()
    .messages({
      'string.empty': 'Give the key a label.',
      'any.required': 'Give the key a label.',
      'string.max': 'A label is at most 64 characters.',
      'string.pattern.base': 'A label may not hold control characters.',
    }),
});
export const revokeKeyForm = form({
  prefix: Joi.string()
    .pattern(/^dk_[\w-]{8}$/)
    .required()
    .messages({ 'string.pattern.base': 'That is not a key prefix.', 'any.required': 'That is not a key prefix.' }),
});
export const passwordForm = form({ current: password, password });

/** The form's values, or a ValidationError whose sentence the page shows. */
export function readForm<T>(schema: Joi.ObjectSchema, body: unknown): T {
  const { error, value } = schema.validate(body ?? {}) as { error?: Joi.ValidationError; value: unknown };
  if (error) throw new ValidationError([{ path: String(error.details[0]?.path[0] ?? 'form'), message: error.details[0]!.message }], error.details[0]!.message);
  return value as T;
}
