import express, { Router, type Response } from 'express';
import { fileURLToPath } from 'node:url';
import { TxNotFound } from '../../domain/errors.js';
import type { DashboardQueries } from '../../queries/dashboard.js';
import { parseParams } from '../openapi/route.js';
import { serve } from '../openapi/serve.js';
import { dashboardItemPageRoute, dashboardItemRoute, dashboardPageRoute, dashboardSummaryRoute } from '../openapi/routes/dashboard.js';

/** the pages, their scripts and styles: plain files, no build step, nothing from elsewhere */
const STATIC_DIR = fileURLToPath(new URL('./static/', import.meta.url));

/** the pages load only their own scripts and styles, and fetch only this origin */
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

function page(res: Response, file: string) {
  res.set({ 'Content-Security-Policy': CSP, 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-cache', 'Referrer-Policy': 'no-referrer' });
  res.sendFile(file, { root: STATIC_DIR });
}

/**
 * The status page (`/dashboard`) and the item page (`/dashboard/tx/:id`) for people, and the JSON
 * they poll (`/dashboard/api/...`), answered from read models like every query.
 */
export function dashboardRouter(queries: DashboardQueries): Router {
  const router = Router();
  serve(router, dashboardPageRoute, (_req, res) => page(res, 'index.html'));
  // any id: the page itself says when the service does not know it
  serve(router, dashboardItemPageRoute, (_req, res) => page(res, 'item.html'));
  router.use(
    '/dashboard/assets',
    express.static(STATIC_DIR, { index: false, redirect: false, setHeaders: (res) => res.setHeader('X-Content-Type-Options', 'nosniff') }),
  );
  serve(router, dashboardSummaryRoute, async (_req, res) => {
    res.set('Cache-Control', 'no-store');
    res.json(await queries.summary());
  });
  serve(router, dashboardItemRoute, async (req, res) => {
    const { id } = parseParams(dashboardItemRoute, req);
    const item = await queries.item(id);
    if (!item) throw new TxNotFound(id);
    res.set('Cache-Control', 'no-store');
    res.json(item);
  });
  return router;
}
