import { authorizeRollView } from './policy';
import { loadRollByUuid } from './store/load';
import type { RollRecord, UserRecord } from './store/records';

/** GET /roll/{uuid}: the roll, or a 404 for anyone who may not see it (policy.ts authorizeRollView). */
export async function readRoll(user: Pick<UserRecord, 'id'>, uuid: string): Promise<RollRecord> {
  return authorizeRollView(await loadRollByUuid(uuid), user.id, uuid);
}
