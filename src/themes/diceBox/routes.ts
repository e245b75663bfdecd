import { Router, type Request, type RequestHandler } from 'express';
import { ValidationError } from '../../errors';
import type { AppDeps } from '../../http/deps';
import { one, page } from '../../http/envelope';
import { baseUrl, listPath } from '../../http/paging';
import { validate } from '../../http/validate';
import { presentOneTheme, presentThemes } from '../present';
import type { ThemeRecord } from '../store/records';
import { removeFromDiceBox, upgradeDiceBoxTheme } from './change';
import { getDiceBoxTheme, listDiceBox, MAX_IDS, parseIds } from './read';
import * as s from './schema';

type ListQuery = { page: number; per_page: number; filter?: string; ids?: string };

/** /api/1.0/dice-box, behind `auth`: thin handlers, the use cases decide. */
export function diceBoxRoutes(deps: AppDeps): Router {
  const router = Router();
  const present = (req: Request) => (theme: ThemeRecord) => presentOneTheme(theme, { baseUrl: baseUrl(req, deps.config) });

  const list: RequestHandler = async (req, res) => {
    const q = req.query as unknown as ListQuery;
    const ids = parseIds(q.ids || undefined);
    if (ids && ids.length > MAX_IDS) throw new ValidationError([{ path: 'query.ids', message: `query.ids may name at most ${MAX_IDS} themes` }]);
    const { items, total } = await listDiceBox(req.user!, { filter: q.filter || undefined, ids, page: q.page, perPage: q.per_page });
    res.json(
      page('theme', await presentThemes(items, { baseUrl: baseUrl(req, deps.config) }), {
        path: listPath(req, deps.config),
        page: q.page,
        perPage: q.per_page,
        total,
        query: { filter: q.filter, ids: q.ids, per_page: String(q.per_page) },
      }),
    );
  };

  const get: RequestHandler = async (req, res) => {
    res.json(one('theme', await present(req)(await getDiceBoxTheme(req.user!, req.params.id as string))));
  };

  const upgrade: RequestHandler = async (req, res) => {
    res.json(one('theme', await present(req)(await upgradeDiceBoxTheme(req.user!, req.params.id as string))));
  };

  const remove: RequestHandler = async (req, res) => {
    await removeFromDiceBox(req.user!, req.params.id as string);
    res.status(204).end();
  };

  router.get('/', validate({ query: s.listQuery }), list);
  router.get('/:id', validate({ params: s.idParams }), get);
  router.patch('/:id', validate({ params: s.idParams }), upgrade);
  router.delete('/:id', validate({ params: s.idParams }), remove);
  return router;
}
