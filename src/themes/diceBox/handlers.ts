import type { Request, RequestHandler } from 'express';
import type { AppDeps } from '../../http/deps';
import { baseUrl, listPath } from '../../http/paging';
import { getDiceBoxTheme, listDiceBox, MAX_IDS, parseIds, removeFromDiceBox, upgradeDiceBoxTheme } from './read';
import { ValidationError } from '../../errors';
import { one, page } from '../../http/envelope';
import { presentTheme } from '../present';
import type { Theme } from '../../db/models';

type Params = Record<string, string>;
type ListQuery = { page: number; per_page: number; filter?: string; ids?: string };

export function diceBoxHandlers(deps: AppDeps) {
  const present = (req: Request) => (theme: Theme) => presentTheme(theme, { baseUrl: baseUrl(req, deps.config) });

  const list: RequestHandler = async (req, res) => {
    const q = req.query as unknown as ListQuery;
    const ids = parseIds(q.ids || undefined);
    if (ids && ids.length > MAX_IDS) throw new ValidationError([{ path: 'query.ids', message: `query.ids may name at most ${MAX_IDS} themes` }]);
    const { items, total } = await listDiceBox(req.user!, { filter: q.filter || undefined, ids, page: q.page, perPage: q.per_page });
    res.json(page('theme', items.map(present(req)), {
      path: listPath(req, deps.config),
      page: q.page,
      perPage: q.per_page,
      total,
      query: { filter: q.filter, ids: q.ids, per_page: String(q.per_page) },
    }));
  };

  const get: RequestHandler<Params> = async (req, res) => {
    res.json(one('theme', present(req)(await getDiceBoxTheme(req.user!, req.params.id!))));
  };

  const upgrade: RequestHandler<Params> = async (req, res) => {
    res.json(one('theme', present(req)(await upgradeDiceBoxTheme(req.user!, req.params.id!))));
  };

  const remove: RequestHandler<Params> = async (req, res) => {
    await removeFromDiceBox(req.user!, req.params.id!);
    res.status(204).end();
  };

  return { list, get, upgrade, remove };
}
