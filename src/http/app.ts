import express, { type Express, type Router } from 'express';
import { commandsRouter, type CommandHandlers } from './commands.js';
import { queriesRouter } from './queries.js';
import type { QueryHandlers } from '../queries/types.js';
import { cors } from './cors.js';
import { adminRouter, type AdminDeps } from './admin.js';
import {
  multipartCommandsRouter,
  multipartQueriesRouter,
  type MultipartCommandHandlers,
  type MultipartQueryHandlers,
} from './multipart.js';
import { errorHandler, sendError } from './errors.js';
import { opsRouter, type OpsDeps } from './health.js';
import { requestLog } from './requestLog.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics/metrics.js';
import { dashboardRouter } from './dashboard/router.js';
import { blockHeightGate } from './blockHeightGate.js';
import type { DashboardQueries } from '../queries/dashboard.js';
import { ApiCatalog, openApiRouter, routeDocs } from './openapi/index.js';
import { serviceVersion } from '../version.js';

export interface AppOptions {
  commands?: CommandHandlers;
  queries?: QueryHandlers;
  multipartCommands?: MultipartCommandHandlers;
  multipartQueries?: MultipartQueryHandlers;
  /** the operator API; absent (no ADMIN_TOKEN configured) means /admin answers 404 */
  admin?: AdminDeps;
  /** the status and item pages for people, with their JSON (served where queries are) */
  dashboard?: DashboardQueries;
  limits: { maxDataItemSize: number };
  /** uploads per client, temporary space, body rate (limits.ts): in front of the upload routes */
  uploadGuard?: Router;
  /** whether a receipt can be signed now (a fresh block height): uploads are refused before it if not */
  blockHeightFresh?: () => boolean;
  /** failures of the service (an unexpected 500, a store down), with the request's id */
  log: (message: string, error: unknown, fields: Record<string, unknown>) => void;
  /** one log line and one metrics sample per request, with its request id (requestLog.ts) */
  observe?: { log: Logger; metrics: Pick<Metrics, 'http'> };
  /** /health, /ready and /metrics, at the root only (health.ts) */
  ops?: OpsDeps;
}

/** Commands and queries are separate routers; every route is served at the root and under /v1. */
export function createApp(options: AppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', 'loopback');
  if (options.observe) app.use(requestLog(options.observe.log, options.observe.metrics));
  if (options.ops) app.use(opsRouter(options.ops));
  app.use(cors);
  if (options.admin) app.use(['/v1/admin', '/admin'], adminRouter(options.admin));
  for (const prefix of ['/v1', '/']) {
    if (options.blockHeightFresh) app.use(prefix, blockHeightGate(options.blockHeightFresh));
    if (options.uploadGuard) app.use(prefix, options.uploadGuard);
    if (options.commands) app.use(prefix, commandsRouter(options.commands, options.limits));
    if (options.multipartCommands) app.use(prefix, multipartCommandsRouter(options.multipartCommands));
    if (options.queries) app.use(prefix, queriesRouter(options.queries));
    if (options.multipartQueries) app.use(prefix, multipartQueriesRouter(options.multipartQueries));
  }
  // pages for a browser, at the root only
  if (options.dashboard) app.use(dashboardRouter(options.dashboard));

  // What this app serves, as /openapi.json and /api-docs describe it: a router mounted above adds its
  // route descriptions here, with the same prefixes (src/http/openapi/).
  const api = new ApiCatalog();
  const PUBLIC = ['/v1', '/'];
  if (options.queries) api.add(PUBLIC, routeDocs.queries);
  if (options.commands) api.add(PUBLIC, routeDocs.commands);
  if (options.multipartCommands) api.add(PUBLIC, routeDocs.multipartCommands);
  if (options.multipartQueries) api.add(PUBLIC, routeDocs.multipartQueries);
  if (options.admin) api.add(['/v1/admin', '/admin'], routeDocs.admin);
  if (options.ops) api.add(['/'], routeDocs.ops);
  if (options.dashboard) api.add(['/'], routeDocs.dashboard);
  api.add(PUBLIC, routeDocs.docs);
  const docs = openApiRouter(api, serviceVersion);
  for (const prefix of PUBLIC) app.use(prefix, docs);

  app.use((_req, res) => sendError(res, 404, 'Not Found'));
  app.use(errorHandler(options.log));
  return app;
}
