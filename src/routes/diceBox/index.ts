import { Router } from 'express';
import type { AppDeps } from '../../http/deps';

// Placeholder: its issue fills this router in.
export function diceBoxRoutes(_deps: AppDeps): Router {
  return Router();
}
