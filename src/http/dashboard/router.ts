import express, { Router, type Response } from 'express';
import { fileURLToPath } from 'node:url';
import { DataItemId } from '../../domain/ids.js';
import { TxNotFound } from '../../domain/errors.js';
import type { DashboardQueries } from '../../queries/dashboard.js';

/** the pages, their scripts and styles: plain files, no build step, nothing from elsewhere */
const STATIC_DIR = fileURLToPath(new URL('./static/', import.meta.url));

/** the pages load only their own scripts and styles, and fetch only this origin */
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

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
  router.get('/dashboard', (_req, res) => page(res, 'index.html'));
  // any id: the page itself says when the service does not know it
  router.get('/dashboard/tx/:id', (_req, res) => page(res, 'item.html'));
  router.use(
    '/dashboard/assets',
    express.static(STATIC_DIR, { index: false, redirect: false, setHeaders: (res) => res.setHeader('X-Content-Type-Options', 'nosniff') }),
  );
  router.get('/dashboard/api/summary', async (_req, res) => {
    res.set('Cache-Control', 'no-store');
    res.json(await queries.summary());
  });
  router.get('/dashboard/api/tx/:id', async (req, res) => {
    const id = DataItemId.safeParse(req.params.id);
    if (!id.success) throw new TxNotFound(req.params.id);
    const item = await queries.item(id.data);
    if (!item) throw new TxNotFound(id.data);
    res.set('Cache-Control', 'no-store');
    res.json(item);
  });
  return router;
}
