import Joi from 'joi';
import { pageQuery } from '../../http/paging';

/** An ISO 8601 time in the future, or null for "never expires". */
const expiresAt = Joi.string()
  .isoDate()
  // An unreadable time is reported once, by isoDate.
  .custom((value: string, helpers) => {
    const time = Date.parse(value);
    return Number.isNaN(time) || time > Date.now() ? value : helpers.error('date.future');
  })
  .allow(null)
  .messages({ 'date.future': '{{#label}} must be in the future', 'string.isoDate': '{{#label}} must be an ISO 8601 time such as "2030-01-31T12:00:00Z"' });
const maxUses = Joi.number().integer().min(1).max(1_000_000).allow(null);

export const listQuery = Joi.object(pageQuery);
export const createBody = Joi.object({ theme: Joi.string().min(1).max(100).required(), expires_at: expiresAt, max_uses: maxUses });
export const idParams = Joi.object({ id: Joi.string().min(1).max(64).required() });
export const updateBody = Joi.object({ expires_at: expiresAt, max_uses: maxUses }).min(1).messages({ 'object.min': 'send expires_at and/or max_uses' });
export const codeParams = Joi.object({ code: Joi.string().min(1).max(64).required() });
