import type { ApiKey } from '../db/models';
import { ts } from '../http/time';

/** A key as its owner sees it: never the key itself (it is not kept) nor its hash. */
export function presentApiKey(apiKey: ApiKey, currentKeyId: number | undefined) {
  return {
    prefix: apiKey.prefix,
    name: apiKey.name,
    is_current: apiKey.id === currentKeyId,
    created_at: ts(apiKey.createdAt),
  };
}

/** A key just created: the only answer that carries the whole key. */
export function presentNewApiKey(apiKey: ApiKey, key: string, currentKeyId: number | undefined) {
  return { ...presentApiKey(apiKey, currentKeyId), key };
}
