import type { ApiKey, NewApiKey, User } from '../client/types';
import { ts } from '../http/time';
import type { ApiKeyRecord, UserRecord } from './store';

/** The public face of a user: never an id, key or e-mail. */
export function presentUser(user: UserRecord): User {
  return {
    uuid: user.uuid,
    username: user.username,
    name: user.name,
    is_registered: Boolean(user.isRegistered),
    subscription: false,
    subscription_level: 0,
    is_merchant: false,
    created_at: ts(user.createdAt),
    updated_at: ts(user.updatedAt),
  };
}

export type PresentedUser = User;

/** A key as its owner sees it: never the key itself (it is not kept) nor its hash. */
export function presentApiKey(apiKey: ApiKeyRecord, currentKeyId: number | undefined): ApiKey {
  return {
    prefix: apiKey.prefix,
    name: apiKey.name,
    is_current: apiKey.id === currentKeyId,
    created_at: ts(apiKey.createdAt),
  };
}

/** A key just created: the only answer that carries the whole key. */
export function presentNewApiKey(apiKey: ApiKeyRecord, key: string, currentKeyId: number | undefined): NewApiKey {
  return { ...presentApiKey(apiKey, currentKeyId), key };
}
