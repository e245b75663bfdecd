/**
 * What verifies a drawn value (docs/fairness.md): its batch and root, its leaf and commitment, the 8
 * sibling hashes up to the root, the leaf's secret and N. Attached to value records by the rolls
 * loaders; the rolls presenter shows the secret only to a viewer who may see the value.
 */
import { LEAVES, secretOf } from './crypto';
import { ledgerUuids, loadBatchesOf, treeOf } from './store/ledgers';

export interface ProofRecord {
  batch: number;
  root: string;
  leaf: number;
  commitment: string;
  path: string[];
  secret: string;
  faces: number;
}

interface Drawn {
  ledgerId?: number | null;
  draw?: number | null;
  drawFaces?: number | null;
  proof?: ProofRecord | null;
}

/** Sets `proof` on every value (null for values no leaf drew), loading the batches they name. */
export async function attachProofs(values: readonly Drawn[]): Promise<void> {
  const wanted = new Map<number, Set<number>>();
  for (const v of values) {
    if (v.ledgerId == null || v.draw == null) continue;
    let set = wanted.get(v.ledgerId);
    if (!set) wanted.set(v.ledgerId, (set = new Set()));
    set.add(Math.floor(v.draw / LEAVES));
  }
  const batches = wanted.size ? await loadBatchesOf(wanted) : new Map<string, never>();
  for (const v of values) {
    if (v.ledgerId == null || v.draw == null) {
      v.proof = null;
      continue;
    }
    const number = Math.floor(v.draw / LEAVES);
    const batch = batches.get(`${v.ledgerId}:${number}`);
    if (!batch) {
      v.proof = null;
      continue;
    }
    const leaf = v.draw % LEAVES;
    const tree = treeOf(batch);
    v.proof = {
      batch: number,
      root: tree.root.toString('hex'),
      leaf,
      commitment: tree.commitment(leaf).toString('hex'),
      path: tree.path(leaf).map((h) => h.toString('hex')),
      secret: Buffer.from(secretOf(batch.secrets, leaf)).toString('hex'),
      faces: v.drawFaces ?? 0,
    };
  }
}

/** Sets `ledgerUuid` on rolls that drew from a ledger, and every value's proof. */
export async function attachFairness(rolls: readonly { ledgerId?: number | null; ledgerUuid?: string | null; values?: Drawn[] }[]): Promise<void> {
  const ids = rolls.flatMap((r) => (r.ledgerId == null ? [] : [r.ledgerId]));
  const [uuids] = await Promise.all([
    ids.length ? ledgerUuids(ids) : Promise.resolve(new Map<number, string>()),
    attachProofs(rolls.flatMap((r) => r.values ?? [])),
  ]);
  for (const r of rolls) r.ledgerUuid = r.ledgerId == null ? null : (uuids.get(r.ledgerId) ?? null);
}
