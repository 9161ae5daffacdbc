import { Router } from 'express';
import type { ApiCatalog } from './catalog.js';
import { openApiDocument, type OpenApiDocument } from './document.js';
import { API_DOCS_CSP, apiDocsPage } from './page.js';
import { apiDocsRoute, openApiRoute } from './routes/docs.js';
import { serve } from './serve.js';

/**
 * GET /openapi.json and GET /api-docs. Built at the first request, once every router of the app has
 * been added to the catalog, and kept: the routes do not change while the process runs.
 */
export function openApiRouter(catalog: ApiCatalog, version: string): Router {
  const router = Router();
  let built: { doc: OpenApiDocument; json: string; page: string } | undefined;
  const docs = () => {
    if (!built) {
      const doc = openApiDocument(catalog, version);
      built = { doc, json: JSON.stringify(doc), page: apiDocsPage(doc) };
    }
    return built;
  };
  serve(router, openApiRoute, (_req, res) => {
    res.type('application/json; charset=utf-8').send(docs().json);
  });
  serve(router, apiDocsRoute, (_req, res) => {
    res.set('Content-Security-Policy', API_DOCS_CSP).type('text/html; charset=utf-8').send(docs().page);
  });
  return router;
}
