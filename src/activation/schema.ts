import Joi from 'joi';

/**
 * The /activate form (application/x-www-form-urlencoded): the code as typed. Its shape is checked by
 * codes.ts's normalizeCode (spaces, dashes and case forgiven), so the page can say what a code looks like.
 */
export const approveForm = Joi.object({ code: Joi.string().max(32).allow('').default('') }).options({ stripUnknown: true });

export const NOT_A_CODE = 'That is not a code: codes are 6 letters and digits, as the integration shows it.';
