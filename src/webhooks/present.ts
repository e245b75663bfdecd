import type { NewWebhook, Webhook, WebhookDelivery } from '../client/types';
import { ts } from '../http/time';
import type { DeliveryRecord } from './store/deliveries';
import type { WebhookRecord } from './store/webhooks';

/** A webhook as its owner sees it: never its secret (presentNewWebhook adds it, once). */
export function presentWebhook(hook: WebhookRecord): Webhook {
  return {
    id: hook.uuid,
    url: hook.url,
    events: hook.events as Webhook['events'],
    room: hook.roomSlug,
    format: hook.format,
    visibility: hook.visibility,
    is_active: hook.isActive,
    disabled_reason: hook.disabledReason,
    created_at: ts(new Date(hook.createdMs)),
    updated_at: ts(new Date(hook.updatedMs)),
  };
}

/** A webhook with the secret just made (creation, rotation): the only answers that carry it. */
export function presentNewWebhook(hook: WebhookRecord): NewWebhook {
  return { ...presentWebhook(hook), secret: hook.secret };
}

export function presentDelivery(delivery: DeliveryRecord): WebhookDelivery {
  return {
    id: delivery.eventId,
    event_type: delivery.eventType,
    status: delivery.status,
    attempts: delivery.attempts,
    last_status_code: delivery.lastStatusCode,
    duration_ms: delivery.durationMs,
    next_attempt_at: delivery.status === 'pending' && delivery.nextAttemptMs !== null ? ts(new Date(delivery.nextAttemptMs)) : null,
    error: delivery.lastError,
    response: delivery.lastResponse,
    created_at: ts(new Date(delivery.createdMs)),
    finished_at: delivery.finishedMs === null ? null : ts(new Date(delivery.finishedMs)),
  };
}
