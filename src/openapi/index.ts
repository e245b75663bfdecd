import { Router } from 'express';
import { openApiDocument } from './document';
import { renderDocsPage } from './html';

export { openApiDocument, type OpenApiDocument } from './document';

/** GET /api/1.0/openapi.json: mounted before `auth` (the document is public). */
export function openApiRoutes(): Router {
  const router = Router();
  const body = JSON.stringify(openApiDocument());
  router.get('/openapi.json', (_req, res) => {
    res.set({ 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-cache' }).send(body);
  });
  return router;
}

/** GET /docs: the document as a readable page (no script, no CDN). */
export function docsRoutes(): Router {
  const router = Router();
  let page: string | null = null;
  router.get('/docs', (_req, res) => {
    page ??= renderDocsPage(openApiDocument());
    res
      .set({
        'Content-Type': 'text/html; charset=utf-8',
        'Cache-Control': 'no-cache',
        'Content-Security-Policy':
          "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        'X-Content-Type-Options': 'nosniff',
      })
      .send(page);
  });
  return router;
}
