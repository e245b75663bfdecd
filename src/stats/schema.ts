import Joi from 'joi';

/** Joi schemas of the statistics routes, compiled once. */

// Any string: a slug that cannot exist is a 404 from the loader, not a 400.
export const slugParams = Joi.object({ slug: Joi.string().max(1000).required() });

const time = Joi.date().iso().messages({
  'date.format': '{{#label}} must be an ISO 8601 time, such as 2026-01-02T03:04:05Z',
  'date.base': '{{#label}} must be an ISO 8601 time, such as 2026-01-02T03:04:05Z',
});
const filters = {
  since: time,
  until: time.when('since', { is: Joi.exist(), then: Joi.date().greater(Joi.ref('since')).messages({ 'date.greater': '{{#label}} must be after since' }) }),
  // A die id: the dice engine's types are at most 64 characters, compared in lower case.
  type: Joi.string().trim().lowercase().min(1).max(64),
};

export const roomStatsQuery = Joi.object({
  ...filters,
  user: Joi.string().guid().messages({ 'string.guid': '{{#label}} must be a user uuid' }),
});

export const userStatsQuery = Joi.object({
  ...filters,
  // Named, not silently dropped: whoever sends it expects it to narrow something, and here it cannot.
  user: Joi.any().forbidden().messages({ 'any.unknown': '{{#label}} is for room statistics; /user/stats counts your own rolls' }),
});
