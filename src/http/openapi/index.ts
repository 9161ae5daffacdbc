/**
 * The API's description: route descriptions (each router parses its parameters with them), the
 * catalog of what an app mounts, and the router serving /openapi.json and /api-docs from it.
 */
import { adminRoutes } from './routes/admin.js';
import { dashboardRoutes } from './routes/dashboard.js';
import { docsRoutes } from './routes/docs.js';
import { multipartCommandRoutes, multipartQueryRoutes } from './routes/multipart.js';
import { opsRoutes } from './routes/ops.js';
import { commandRoutes, queryRoutes } from './routes/public.js';

export { ApiCatalog } from './catalog.js';
export { openApiRouter } from './router.js';
export { defineRoute, parseParams, type RouteDoc } from './route.js';

/** the route descriptions of each router, to add to the catalog where the router is mounted */
export const routeDocs = {
  commands: commandRoutes,
  queries: queryRoutes,
  multipartCommands: multipartCommandRoutes,
  multipartQueries: multipartQueryRoutes,
  admin: adminRoutes,
  ops: opsRoutes,
  dashboard: dashboardRoutes,
  docs: docsRoutes,
};
