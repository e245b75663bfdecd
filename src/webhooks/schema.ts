import Joi from 'joi';
import { pageQuery } from '../http/paging';

/** The events a webhook may ask for (docs/webhooks.md); `*` is every one. */
export const WEBHOOK_EVENTS = [
  'roll.created',
  'roll.updated',
  'roll.deleted',
  'room.updated',
  'room.deleted',
  'participant.joined',
  'participant.updated',
  'participant.left',
] as const;

export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const URL_MAX = 2048;

const url = Joi.string()
  .max(URL_MAX)
  .pattern(/^[hH][tT][tT][pP][sS]?:\/\//)
  .messages({ 'string.pattern.base': '{{#label}} must be an https URL' });
const events = Joi.array()
  .items(Joi.string().valid(...WEBHOOK_EVENTS, '*'))
  .min(1)
  // Repeats are dropped by the use case (manage.ts), not refused.
  .max(20);

export const createWebhookBody = Joi.object({
  url: url.required(),
  events: events.required(),
  room: Joi.string().max(1000).allow(null),
  format: Joi.string().valid('standard', 'discord'),
  visibility: Joi.string().valid('owner', 'public'),
});

export const updateWebhookBody = Joi.object({
  url,
  events,
  is_active: Joi.boolean(),
});

export const webhookParams = Joi.object({ id: Joi.string().guid().required() });

export const webhookPageQuery = Joi.object(pageQuery);
