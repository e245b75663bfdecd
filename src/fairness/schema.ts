import Joi from 'joi';

/** Batches a ledger page lists at most (each about 150 bytes of JSON). */
export const MAX_BATCHES_PER_PAGE = 500;
export const DEFAULT_BATCHES_PER_PAGE = 100;
/** A batch number: a ledger of 2^31 batches would hold 500 billion draws. */
const batchNumber = Joi.number().integer().min(0).max(2_147_483_647);

export const slugParams = Joi.object({ slug: Joi.string().max(1000).required() });
export const batchParams = Joi.object({ slug: Joi.string().max(1000), batch: batchNumber.required() });
export const ledgerQuery = Joi.object({
  limit: Joi.number().integer().min(1).max(MAX_BATCHES_PER_PAGE).default(DEFAULT_BATCHES_PER_PAGE),
  before: batchNumber,
});
