import { NotFoundError, ForbiddenError } from '../errors';
import { requireRoomBySlug } from '../rooms/access';
import { isParticipant } from '../rooms/policy';
import { SLUG_PATTERN } from '../rooms/codes';
import { LEAVES } from './crypto';
import {
  ensureLedger,
  findLedger,
  loadBatches,
  readLeafUses,
  readPublication,
  roomScope,
  userScope,
  type BatchRecord,
  type LedgerPublication,
  type LedgerRecord,
  type LeafUse,
} from './store/ledgers';

/**
 * The publication of ledgers (docs/fairness.md): a room's to whoever may read the room's rolls (its
 * participants), a user's own to that user alone (its rolls outside rooms are theirs alone).
 */

async function roomLedger(userId: number, slug: string): Promise<LedgerRecord> {
  if (!SLUG_PATTERN.test(slug)) throw new NotFoundError(`There is no room "${slug.slice(0, 64)}".`);
  const room = await requireRoomBySlug(slug);
  if (!isParticipant(room, userId)) throw new ForbiddenError(`Join the room first (POST /api/1.0/room/${room.slug}/participant) to see its ledger.`);
  // Reading a ledger before any roll creates it: its first batches are published before the first draw.
  return ensureLedger(roomScope(room.id), room.id, null);
}

const userLedger = (userId: number) => ensureLedger(userScope(userId), null, userId);

export async function readLedger(
  userId: number,
  slug: string | null,
  page: { limit: number; before?: number },
): Promise<{ publication: LedgerPublication; more: boolean }> {
  const ledger = slug === null ? await userLedger(userId) : await roomLedger(userId, slug);
  const publication = await readPublication(ledger, page.limit + 1, page.before);
  const more = publication.batches.length > page.limit;
  publication.batches = publication.batches.slice(0, page.limit);
  return { publication, more };
}

export interface BatchPublication {
  ledger: LedgerRecord;
  batch: BatchRecord;
  nextDraw: number;
  uses: LeafUse[];
}

export async function readBatch(userId: number, slug: string | null, number: number): Promise<BatchPublication> {
  const ledger = slug === null ? await userLedger(userId) : await roomLedger(userId, slug);
  const batch = (await loadBatches(ledger.id, [number])).get(number);
  if (!batch) throw new NotFoundError(`This ledger has no batch ${number}.`);
  // The position first, then the uses: a roll committed in between shows as used, never as a gap.
  const { nextDraw } = await readPublication(ledger, 0);
  const uses = await readLeafUses(ledger.id, number);
  return { ledger, batch, nextDraw, uses };
}

export { LEAVES, findLedger };
