import { Router, type RequestHandler } from 'express';
import type { AppDeps } from '../http/deps';
import { one } from '../http/envelope';
import { listPath } from '../http/paging';
import { validate } from '../http/validate';
import { presentBatch, presentLedger } from './present';
import { readBatch, readLedger } from './read';
import * as s from './schema';

/**
 * The publication of fairness ledgers (docs/fairness.md), mounted at the /api/1.0 root behind `auth`
 * (before the user router, which would take /user/fairness for itself): full paths here.
 */
export function fairnessRoutes(deps: AppDeps): Router {
  const router = Router();
  const ledger: RequestHandler = async (req, res) => {
    const { limit, before } = req.query as unknown as { limit: number; before?: number };
    const slug = (req.params.slug as string | undefined) ?? null;
    const { publication, more } = await readLedger(req.user!.id, slug, { limit, before });
    const last = publication.batches[publication.batches.length - 1];
    const next = more && last ? `${listPath(req, deps.config)}?${new URLSearchParams({ limit: String(limit), before: String(last.number) })}` : null;
    res.json(one('fairness_ledger', presentLedger(publication, next)));
  };
  const batch: RequestHandler = async (req, res) => {
    const slug = (req.params.slug as string | undefined) ?? null;
    const found = await readBatch(req.user!.id, slug, Number(req.params.batch));
    res.json(one('fairness_batch', presentBatch(found)));
  };
  router.get('/room/:slug/fairness', validate({ params: s.slugParams, query: s.ledgerQuery }), ledger);
  router.get('/room/:slug/fairness/batch/:batch', validate({ params: s.batchParams }), batch);
  router.get('/user/fairness', validate({ query: s.ledgerQuery }), ledger);
  router.get('/user/fairness/batch/:batch', validate({ params: s.batchParams }), batch);
  return router;
}
