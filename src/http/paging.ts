import type { Request } from 'express';
import Joi from 'joi';
import type { Config } from '../config';
import { baseUrl } from './origin';

export { baseUrl } from './origin';

export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 100;

/** Query keys of every paged list. */
export const pageQuery = {
  page: Joi.number().integer().min(1).max(1_000_000).default(1),
  per_page: Joi.number().integer().min(1).max(MAX_PER_PAGE).default(DEFAULT_PER_PAGE),
};

/** Absolute URL of the current path without its query: the `path` of a page's links. */
export function listPath(req: Request, config: Pick<Config, 'publicUrl' | 'allowedHosts'>): string {
  return baseUrl(req, config) + req.baseUrl + req.path.replace(/\/$/, '');
}
