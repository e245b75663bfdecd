import { operation, pathParam, queryParam } from '../operations';
import { slug } from '../params';
import { envelope, ref } from '../schemas';
import { DEFAULT_BATCHES_PER_PAGE, MAX_BATCHES_PER_PAGE } from '../../fairness/schema';

const batch = pathParam('batch', "The batch's number in the ledger", { type: 'integer', minimum: 0 });
const pageParams = [
  queryParam('limit', 'Batches listed at most', { type: 'integer', minimum: 1, maximum: MAX_BATCHES_PER_PAGE, default: DEFAULT_BATCHES_PER_PAGE }),
  queryParam('before', 'List the batches numbered below this one (the `links.next` of a page)', { type: 'integer', minimum: 0 }),
];
const ledger = envelope('fairness_ledger', ref('FairnessLedger'));
const batchBody = envelope('fairness_batch', ref('FairnessBatch'));
const construction = 'The construction, and how to verify a roll with it, is in docs/fairness.md (scripts/verify-roll.mjs does it).';

/** The publication of fairness ledgers. */
export const fairnessPaths: Record<string, Record<string, unknown>> = {
  '/api/1.0/room/{slug}/fairness': {
    get: operation('readRoomLedger', {
      tag: 'Fairness',
      summary: "A room's fairness ledger: the current batch, how far it is used, and every batch's root (its participants)",
      description: `Batches are published (their roots here) before any of their leaves is drawn. ${construction}`,
      params: [slug, ...pageParams],
      success: [{ status: '200', description: 'The ledger', schema: ledger }],
      errors: ['forbidden', 'not_found'],
    }),
  },
  '/api/1.0/room/{slug}/fairness/batch/{batch}': {
    get: operation('readRoomLedgerBatch', {
      tag: 'Fairness',
      summary: "A batch of a room's ledger: each leaf's commitment and the roll value that drew it",
      description: `A gap (a leaf skipped) or a reuse would show here. ${construction}`,
      params: [slug, batch],
      success: [{ status: '200', description: 'The batch', schema: batchBody }],
      errors: ['forbidden', 'not_found'],
    }),
  },
  '/api/1.0/user/fairness': {
    get: operation('readUserLedger', {
      tag: 'Fairness',
      summary: 'Your own fairness ledger: the draws of your rolls made outside rooms',
      description: construction,
      params: pageParams,
      success: [{ status: '200', description: 'The ledger', schema: ledger }],
    }),
  },
  '/api/1.0/user/fairness/batch/{batch}': {
    get: operation('readUserLedgerBatch', {
      tag: 'Fairness',
      summary: "A batch of your own ledger: each leaf's commitment and the roll value that drew it",
      params: [batch],
      success: [{ status: '200', description: 'The batch', schema: batchBody }],
      errors: ['not_found'],
    }),
  },
};
