import * as webhooks from '../../webhooks/schema';
import { fromJoi, withNotes } from '../fromJoi';
import { operation, pageParams, pathParam } from '../operations';
import { envelope, nullable, pageOf, ref, strict, TIMESTAMP_PATTERN, type Schema } from '../schemas';

const webhookId = pathParam('id', 'Webhook id (a uuid)', { type: 'string', format: 'uuid' });
const events: Schema = { type: 'array', items: { enum: [...webhooks.WEBHOOK_EVENTS, '*'] }, minItems: 1 };
const timestamp: Schema = { type: 'string', pattern: TIMESTAMP_PATTERN };

const urlRule =
  '`https` only (http only for hosts the operator lists in `WEBHOOK_ALLOWED_HOSTS`), no credentials, not resolving to a loopback, private, link-local, unique-local, multicast or unspecified address: a refusal is a 400 naming the rule. Checked again at every delivery.';

/** Webhooks: signed deliveries of room and roll events (docs/webhooks.md). */
export const webhooksPaths: Record<string, Record<string, unknown>> = {
  '/api/1.0/webhook': {
    get: operation('listWebhooks', {
      tag: 'Webhooks',
      summary: 'Your webhooks',
      params: pageParams,
      success: [{ status: '200', description: 'A page of your webhooks, oldest first', schema: pageOf('webhook', ref('Webhook')) }],
    }),
    post: operation('createWebhook', {
      tag: 'Webhooks',
      summary: 'Create a webhook: its signing secret is in this answer only',
      description: `Events are sent in the Standard Webhooks format, signed with \`secret\` (docs/webhooks.md). With \`room\` (a room you own or take part in) the room's events; without, your own rolls in any room or none. ${urlRule} At most \`WEBHOOKS_PER_USER\` (10) per user (409 \`quota_exceeded\`).`,
      body: withNotes(fromJoi(webhooks.createWebhookBody), {
        url: { description: 'Where events are POSTed' },
        events: { description: 'Event types, or `["*"]` for all' },
        room: { description: 'A room slug; omitted or null: your own rolls wherever they are made' },
        format: {
          description: '`discord`: the body is a Discord execute-webhook message per new roll (set by itself for a Discord webhook URL)',
          default: 'standard',
        },
        visibility: {
          description: '`owner`: what you may see; `public`: what a bystander sees (hidden dice null, no whispers). Forced to `public` for Discord',
          default: 'owner',
        },
      }),
      example: { url: 'https://example.com/dice-hook', events: ['roll.created'], room: 'r0ll1ng' },
      success: [{ status: '201', description: 'The webhook, with `secret`', schema: envelope('webhook', ref('NewWebhook')) }],
      errors: ['forbidden', 'not_found', 'quota_exceeded'],
    }),
  },
  '/api/1.0/webhook/{id}': {
    get: operation('getWebhook', {
      tag: 'Webhooks',
      summary: 'One of your webhooks',
      params: [webhookId],
      success: [{ status: '200', description: 'The webhook', schema: envelope('webhook', ref('Webhook')) }],
      errors: ['not_found'],
    }),
    patch: operation('updateWebhook', {
      tag: 'Webhooks',
      summary: 'Change its URL or events, or disable or enable it',
      description: `\`is_active: true\` enables a webhook the server disabled (a 410 from the receiver, or 20 events in a row failed) and clears its \`disabled_reason\`. ${urlRule}`,
      params: [webhookId],
      body: fromJoi(webhooks.updateWebhookBody),
      example: { is_active: true },
      success: [{ status: '200', description: 'The webhook, changed', schema: envelope('webhook', ref('Webhook')) }],
      errors: ['not_found'],
    }),
    delete: operation('deleteWebhook', {
      tag: 'Webhooks',
      summary: 'Delete a webhook and its delivery log',
      params: [webhookId],
      success: [{ status: '204', description: 'Deleted' }],
      errors: ['not_found'],
    }),
  },
  '/api/1.0/webhook/{id}/secret': {
    post: operation('rotateWebhookSecret', {
      tag: 'Webhooks',
      summary: 'Rotate the signing secret: the new one is in this answer only; the old one keeps signing beside it for 24 h',
      params: [webhookId],
      success: [{ status: '200', description: 'The webhook, with its new `secret`', schema: envelope('webhook', ref('NewWebhook')) }],
      errors: ['not_found'],
    }),
  },
  '/api/1.0/webhook/{id}/test': {
    post: operation('testWebhook', {
      tag: 'Webhooks',
      summary: 'Send a `webhook.test` event now',
      params: [webhookId],
      success: [{ status: '202', description: 'Queued: its delivery, as the log will show it', schema: envelope('webhook_delivery', ref('WebhookDelivery')) }],
      errors: ['not_found', 'conflict'],
    }),
  },
  '/api/1.0/webhook/{id}/delivery': {
    get: operation('listWebhookDeliveries', {
      tag: 'Webhooks',
      summary: 'The delivery log: each event, its attempts and the last answer (at most 1 KiB of it)',
      params: [webhookId, ...pageParams],
      success: [
        {
          status: '200',
          description: 'A page of deliveries, newest first (kept 7 days after they finish)',
          schema: pageOf('webhook_delivery', ref('WebhookDelivery')),
        },
      ],
      errors: ['not_found'],
    }),
  },
};

const webhookFields: Record<string, Schema> = {
  id: { type: 'string', format: 'uuid' },
  url: { type: 'string', format: 'uri' },
  events,
  room: nullable({ type: 'string' }),
  format: { enum: ['standard', 'discord'] },
  visibility: { enum: ['owner', 'public'] },
  is_active: { type: 'boolean' },
  disabled_reason: nullable({ type: 'string' }),
  created_at: timestamp,
  updated_at: timestamp,
};

export const webhookSchemas: Record<string, Schema> = {
  Webhook: strict(webhookFields, { description: 'A webhook, without its secret' }),
  NewWebhook: strict(
    { ...webhookFields, secret: { type: 'string', pattern: '^whsec_[A-Za-z0-9+/]{32}$', description: 'Standard Webhooks secret: shown once, never again' } },
    { description: 'A webhook just created, or its secret just rotated' },
  ),
  WebhookDelivery: strict(
    {
      id: { type: 'string', description: 'The event id: the `webhook-id` header, the same on every attempt' },
      event_type: { type: 'string' },
      status: { enum: ['pending', 'delivered', 'failed', 'skipped'] },
      attempts: { type: 'integer', minimum: 0 },
      last_status_code: nullable({ type: 'integer' }),
      duration_ms: nullable({ type: 'integer', minimum: 0 }),
      next_attempt_at: nullable(timestamp),
      error: nullable({ type: 'string' }),
      response: nullable({ type: 'string', maxLength: 1024 }),
      created_at: timestamp,
      finished_at: nullable(timestamp),
    },
    { description: "One event's delivery to a webhook" },
  ),
};
