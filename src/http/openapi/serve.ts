import type { Request, RequestHandler, Response, Router } from 'express';
import type { AnyRoute } from './catalog.js';
import type { PathParam, RouteDoc } from './route.js';

const servedBy = new WeakMap<Router, AnyRoute[]>();

/**
 * Registers `handler` on `router` at the route description's method and path: a path is written once,
 * in its description, and what a router serves is what the catalog documents (`servedRoutes`). The
 * handler parses the parameters it needs with `parseParams(route, req)` (a page may take any id).
 */
export function serve<P extends Record<string, PathParam>>(router: Router, route: RouteDoc<P>, handler: (req: Request, res: Response) => unknown): void {
  router[route.method](route.path, handler as RequestHandler);
  const routes = servedBy.get(router) ?? [];
  routes.push(route as AnyRoute);
  servedBy.set(router, routes);
}

/** the route descriptions `serve` registered on `router`, in their order */
export const servedRoutes = (router: Router): readonly AnyRoute[] => servedBy.get(router) ?? [];

/** Runs `middleware` in front of each of `routes` (at their method and path) on a router of its own. */
export function inFrontOf(router: Router, routes: readonly AnyRoute[], middleware: RequestHandler): void {
  for (const route of routes) router[route.method](route.path, middleware);
}
