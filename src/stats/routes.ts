import { Router, type RequestHandler } from 'express';
import { one } from '../http/envelope';
import { validate } from '../http/validate';
import { presentStats } from './present';
import { readRoomStats, readUserStats, type StatsFilter } from './read';
import * as s from './schema';

/**
 * Roll statistics, mounted at the /api/1.0 root behind `auth`: GET /room/{slug}/stats and
 * GET /user/stats (docs/stats.md). Handlers map the query to the use case's filter and present.
 */
export function statsRoutes(): Router {
  const router = Router();
  router.get('/room/:slug/stats', validate({ params: s.slugParams, query: s.roomStatsQuery }), room);
  router.get('/user/stats', validate({ query: s.userStatsQuery }), own);
  return router;
}

interface StatsQueryIn {
  since?: Date;
  until?: Date;
  user?: string;
  type?: string;
}

const filterOf = (q: StatsQueryIn): StatsFilter => ({ since: q.since, until: q.until, rollerUuid: q.user, type: q.type });

const room: RequestHandler = async (req, res) => {
  const stats = await readRoomStats(req.user!, req.params.slug as string, filterOf(req.query as StatsQueryIn));
  res.json(one('stats', presentStats(stats)));
};

const own: RequestHandler = async (req, res) => {
  const stats = await readUserStats(req.user!, filterOf(req.query as StatsQueryIn));
  res.json(one('stats', presentStats(stats)));
};
