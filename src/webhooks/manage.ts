import { randomBytes, randomUUID } from 'node:crypto';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../errors';
import { readRoomBySlug } from '../rooms/store/read';
import { QuotaExceededError } from '../users/quotas';
import type { WebhookConfig } from '../webhookConfig';
import type { CreateWebhookBody, UpdateWebhookBody } from '../client/types';
import { isDiscordUrl, mayHearRoom, ownsWebhook } from './policy';
import { checkUrlShape, RefusedUrlError, resolveTarget } from './ssrf';
import { enqueueEvent, findDelivery, listDeliveries, type DeliveryRecord } from './store/deliveries';
import { deleteWebhook, findWebhookByUuid, insertWebhook, listWebhooks, updateWebhook, type WebhookChange, type WebhookRecord } from './store/webhooks';

type UserRef = { id: number };

/** How long a rotated-out secret keeps signing beside the new one: receivers have a day to switch. */
export const PREVIOUS_SECRET_MS = 24 * 3_600_000;

/** `whsec_` + base64 of 24 random bytes: the Standard Webhooks form, which its libraries take as is. */
export function newSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** A fresh message id (`webhook-id`) for an event nothing else names. */
export function newEventId(): string {
  return `msg_${randomBytes(16).toString('base64url')}`;
}

/**
 * A URL deliveries may go to, or a 400 naming the rule it breaks (ssrf.ts). Its name is resolved now
 * too, so an obviously internal target is refused at once; every delivery checks again.
 */
async function checkedUrl(text: string, config: WebhookConfig): Promise<URL> {
  try {
    const url = checkUrlShape(text, config);
    await resolveTarget(url, config);
    return url;
  } catch (err) {
    if (err instanceof RefusedUrlError) throw new ValidationError([{ path: 'url', message: err.rule }]);
    throw err;
  }
}

export async function createWebhook(user: UserRef, body: CreateWebhookBody, config: WebhookConfig): Promise<WebhookRecord> {
  const url = await checkedUrl(body.url, config);
  let roomId: number | null = null;
  if (body.room) {
    const room = await readRoomBySlug(body.room);
    if (!room) throw new NotFoundError(`There is no room "${body.room}".`);
    if (!mayHearRoom(room, user.id)) throw new ForbiddenError("Only the room's owner and participants may have webhooks on it.");
    roomId = room.id;
  }
  const format = body.format ?? (isDiscordUrl(url) ? 'discord' : 'standard');
  const hook = await insertWebhook(
    {
      uuid: randomUUID(),
      userId: user.id,
      roomId,
      url: url.toString(),
      events: [...new Set(body.events)],
      format,
      // A Discord channel is read by whoever is in it: what a bystander of the room sees, never more.
      visibility: format === 'discord' ? 'public' : (body.visibility ?? 'owner'),
      secret: newSecret(),
    },
    config.perUser,
  );
  if (!hook) throw new QuotaExceededError(`You have ${config.perUser} webhooks already, the most one user may have: delete one first.`);
  return hook;
}

/** The user's own webhook `uuid`; anyone else's is a 404, as if it did not exist. */
export async function requireOwnWebhook(user: UserRef, uuid: string): Promise<WebhookRecord> {
  const hook = await findWebhookByUuid(uuid);
  if (!hook || !ownsWebhook(hook, user.id)) throw new NotFoundError('There is no such webhook.');
  return hook;
}

export function listOwnWebhooks(user: UserRef, page: number, perPage: number) {
  return listWebhooks(user.id, (page - 1) * perPage, perPage);
}

export async function changeWebhook(user: UserRef, uuid: string, body: UpdateWebhookBody, config: WebhookConfig): Promise<WebhookRecord> {
  const hook = await requireOwnWebhook(user, uuid);
  const change: WebhookChange = {};
  if (body.url !== undefined) {
    const url = await checkedUrl(body.url, config);
    change.url = url.toString();
    if (hook.format === 'standard' && isDiscordUrl(url)) change.format = 'discord';
    if (change.format === 'discord') change.visibility = 'public';
  }
  if (body.events !== undefined) change.events = [...new Set(body.events)];
  if (body.is_active !== undefined) {
    change.isActive = body.is_active;
    // Enabled again by its owner: the server's reason and the run of failures are forgotten.
    if (body.is_active) Object.assign(change, { disabledReason: null, failedInRow: 0 });
  }
  return (await updateWebhook(hook.id, change)) ?? hook;
}

export async function removeWebhook(user: UserRef, uuid: string): Promise<void> {
  const hook = await requireOwnWebhook(user, uuid);
  await deleteWebhook(hook.id);
}

/** A new secret, answered once; the old one keeps signing beside it for PREVIOUS_SECRET_MS. */
export async function rotateSecret(user: UserRef, uuid: string, nowMs = Date.now()): Promise<WebhookRecord> {
  const hook = await requireOwnWebhook(user, uuid);
  const changed = await updateWebhook(hook.id, { secret: newSecret(), previousSecret: hook.secret, previousSecretUntilMs: nowMs + PREVIOUS_SECRET_MS }, nowMs);
  if (!changed) throw new NotFoundError('There is no such webhook.');
  return changed;
}

/** Queue a `webhook.test` event for this webhook; answers its delivery. */
export async function sendTest(user: UserRef, uuid: string): Promise<DeliveryRecord> {
  const hook = await requireOwnWebhook(user, uuid);
  if (!hook.isActive) throw new ConflictError('This webhook is disabled: enable it (PATCH is_active: true) before testing it.', 'conflict');
  const eventId = newEventId();
  await enqueueEvent({ eventId, type: 'webhook.test', payload: { webhookId: hook.uuid }, audience: { webhookId: hook.id } });
  const delivery = await findDelivery(hook.id, eventId);
  if (!delivery) throw new ConflictError('This webhook is disabled: enable it (PATCH is_active: true) before testing it.', 'conflict');
  return delivery;
}

export async function deliveryLog(user: UserRef, uuid: string, page: number, perPage: number) {
  const hook = await requireOwnWebhook(user, uuid);
  return listDeliveries(hook.id, (page - 1) * perPage, perPage);
}
