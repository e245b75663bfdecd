import type { FairnessBatch, FairnessLedger } from '../client/types';
import { ts } from '../http/time';
import { LEAVES } from './crypto';
import type { BatchPublication } from './read';
import { treeOf, type LedgerPublication } from './store/ledgers';

/** A ledger as published: the batch the next draw comes from, how much of it is used, every root. */
export function presentLedger(p: LedgerPublication, nextLink: string | null): FairnessLedger {
  const current = Math.floor(p.nextDraw / LEAVES);
  const cur = p.batches.find((b) => b.number === current);
  return {
    ledger: p.ledger.uuid,
    current: cur ? { batch: current, root: cur.root.toString('hex'), used: p.nextDraw - current * LEAVES, created_at: ts(cur.createdAt) } : null,
    next_draw: p.nextDraw,
    batches: p.batches.map((b) => ({ batch: b.number, root: b.root.toString('hex'), created_at: ts(b.createdAt) })),
    links: { next: nextLink },
  };
}

/** A batch's commitments, each with the roll value that drew it. */
export function presentBatch(p: BatchPublication): FairnessBatch {
  const tree = treeOf(p.batch);
  const byLeaf = new Map(p.uses.map((u) => [u.draw % LEAVES, u]));
  const first = p.batch.number * LEAVES;
  return {
    ledger: p.ledger.uuid,
    batch: p.batch.number,
    root: tree.root.toString('hex'),
    created_at: ts(p.batch.createdAt),
    leaves: Array.from({ length: LEAVES }, (_, leaf) => {
      const use = byLeaf.get(leaf);
      // Below the ledger's position a leaf was drawn: a value without a row belonged to a deleted roll.
      const state = use ? 'used' : first + leaf < p.nextDraw ? 'deleted' : 'unused';
      return { leaf, commitment: tree.commitment(leaf).toString('hex'), state, roll: use?.rollUuid ?? null, value: use?.valueUuid ?? null };
    }),
  };
}
