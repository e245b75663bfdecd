import { Router } from 'express';
import type { AppDeps } from '../../http/deps';
import { validate } from '../../http/validate';
import { diceBoxHandlers } from './handlers';
import { diceBoxItemSchema, listDiceBoxSchema } from './schema';

export function diceBoxRoutes(deps: AppDeps): Router {
  const router = Router();
  const h = diceBoxHandlers(deps);
  router.get('/', validate(listDiceBoxSchema), h.list);
  router.get('/:id', validate(diceBoxItemSchema), h.get);
  router.patch('/:id', validate(diceBoxItemSchema), h.upgrade);
  router.delete('/:id', validate(diceBoxItemSchema), h.remove);
  return router;
}
