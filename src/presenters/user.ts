import type { UserRecord as User } from '../db/records';
import { ts } from '../http/time';

/** The public face of a user: never an id, key or e-mail. */
export function presentUser(user: User) {
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

export type PresentedUser = ReturnType<typeof presentUser>;
