import { Router, type Request, type Response } from 'express';
import type { AppDeps } from '../http/deps';
import { one, page } from '../http/envelope';
import { listPath } from '../http/paging';
import { validate } from '../http/validate';
import type { CreateWebhookBody, UpdateWebhookBody } from '../client/types';
import { changeWebhook, createWebhook, deliveryLog, listOwnWebhooks, removeWebhook, requireOwnWebhook, rotateSecret, sendTest } from './manage';
import { presentDelivery, presentNewWebhook, presentWebhook } from './present';
import { createWebhookBody, updateWebhookBody, webhookPageQuery, webhookParams } from './schema';
import { wakeDeliveries } from './worker';

type PageQuery = { page: number; per_page: number };

/** /api/1.0/webhook, behind auth: a user's webhooks and their delivery logs (docs/webhooks.md). */
export function webhookRoutes(deps: AppDeps): Router {
  const router = Router();
  const config = deps.config.webhooks;
  const id = (req: Request) => String(req.params.id);

  router.post('/', validate({ body: createWebhookBody }), async (req: Request, res: Response) => {
    const hook = await createWebhook(req.user!, req.body as CreateWebhookBody, config);
    // The secret is in this answer only: no cache may keep it.
    res
      .status(201)
      .set('Cache-Control', 'no-store')
      .json(one('webhook', presentNewWebhook(hook)));
  });
  router.get('/', validate({ query: webhookPageQuery }), async (req: Request, res: Response) => {
    const q = req.query as unknown as PageQuery;
    const { items, total } = await listOwnWebhooks(req.user!, q.page, q.per_page);
    res.json(
      page('webhook', items.map(presentWebhook), {
        path: listPath(req, deps.config),
        page: q.page,
        perPage: q.per_page,
        total,
        query: { per_page: String(q.per_page) },
      }),
    );
  });
  router.get('/:id', validate({ params: webhookParams }), async (req: Request, res: Response) => {
    res.json(one('webhook', presentWebhook(await requireOwnWebhook(req.user!, id(req)))));
  });
  router.patch('/:id', validate({ params: webhookParams, body: updateWebhookBody }), async (req: Request, res: Response) => {
    const hook = await changeWebhook(req.user!, id(req), req.body as UpdateWebhookBody, config);
    // Enabled again: what waited meanwhile goes now.
    if (hook.isActive) wakeDeliveries();
    res.json(one('webhook', presentWebhook(hook)));
  });
  router.delete('/:id', validate({ params: webhookParams }), async (req: Request, res: Response) => {
    await removeWebhook(req.user!, id(req));
    res.status(204).end();
  });
  router.post('/:id/secret', validate({ params: webhookParams }), async (req: Request, res: Response) => {
    const hook = await rotateSecret(req.user!, id(req));
    res.set('Cache-Control', 'no-store').json(one('webhook', presentNewWebhook(hook)));
  });
  router.post('/:id/test', validate({ params: webhookParams }), async (req: Request, res: Response) => {
    const delivery = await sendTest(req.user!, id(req));
    wakeDeliveries();
    res.status(202).json(one('webhook_delivery', presentDelivery(delivery)));
  });
  router.get('/:id/delivery', validate({ params: webhookParams, query: webhookPageQuery }), async (req: Request, res: Response) => {
    const q = req.query as unknown as PageQuery;
    const { items, total } = await deliveryLog(req.user!, id(req), q.page, q.per_page);
    res.json(
      page('webhook_delivery', items.map(presentDelivery), {
        path: listPath(req, deps.config),
        page: q.page,
        perPage: q.per_page,
        total,
        query: { per_page: String(q.per_page) },
      }),
    );
  });
  return router;
}
