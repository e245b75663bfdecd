import Joi from 'joi';
import { pageQuery } from '../../http/paging';

const id = Joi.string().min(1).max(100).required();

export const listQuery = Joi.object({
  ...pageQuery,
  filter: Joi.string().allow('').max(100),
  // comma-separated theme ids; at most MAX_IDS of them (checked after splitting)
  ids: Joi.string().allow('').max(10_000),
});
export const idParams = Joi.object({ id });
