import express, { type Express, type Router } from 'express';
import { commandsRouter, type CommandHandlers } from './commands.js';
import { x402Router, type X402Handlers } from './x402.js';
import { queriesRouter } from './queries.js';
import { irysPriceRouter, turboPaymentRouter } from './payment.js';
import type { MultipartQueryHandlers, QueryHandlers } from '../queries/types.js';
import { cors } from './cors.js';
import { adminRouter, type AdminDeps } from './admin.js';
import { multipartCommandsRouter, multipartQueriesRouter, type MultipartCommandHandlers } from './multipart.js';
import { errorHandler, sendError } from './errors.js';
import { opsRouter, type OpsDeps } from './health.js';
import { requestLog } from './requestLog.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics/metrics.js';
import { dashboardRouter } from './dashboard/router.js';
import { blockHeightGate } from './blockHeightGate.js';
import type { DashboardQueries } from '../queries/dashboard.js';
import { ApiCatalog, openApiRouter, servedRoutes } from './openapi/index.js';
import { createPaceWatch, DEFAULT_BODY_RATE, type BodyRateLimits } from './bodyRate.js';
import { liveStatusRouter, type LiveStatusLimits } from './liveStatus.js';
import type { StatusStreams } from '../queries/statusStreams.js';

const PUBLIC = ['/v1', '/'];
import { serviceVersion } from '../version.js';

export interface AppOptions {
  commands?: CommandHandlers;
  queries?: QueryHandlers;
  multipartCommands?: MultipartCommandHandlers;
  /** x402 pay-per-upload (x402.ts), when configured */
  x402?: X402Handlers;
  multipartQueries?: MultipartQueryHandlers;
  /** the operator API; absent (no ADMIN_TOKEN configured) means /admin answers 404 */
  admin?: AdminDeps;
  /** the status and item pages for people, with their JSON (served where queries are) */
  dashboard?: DashboardQueries;
  limits: { maxDataItemSize: number; topUpClaimsPerClientPerMinute?: number };
  /** how fast a client reading a payload back must take its bytes (sendBlob.ts): the upload bodies' minimum rate (default: its default) */
  readPace?: BodyRateLimits;
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
  /** the status streams (served where queries are: liveStatus.ts) */
  liveStatus?: { streams: StatusStreams; limits: LiveStatusLimits };
}

/** Commands and queries are separate routers; every route is served at the root and under /v1. */
export function createApp(options: AppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', 'loopback');
  if (options.observe) app.use(requestLog(options.observe.log, options.observe.metrics));
  const ops = options.ops ? opsRouter(options.ops) : undefined;
  if (ops) app.use(ops);
  app.use(cors);
  const admin = options.admin ? adminRouter(options.admin) : undefined;
  if (admin) app.use(['/v1/admin', '/admin'], admin);
  // one instance of each router, mounted under /v1 and at the root, in this order
  const commands = options.commands ? commandsRouter(options.commands, options.limits) : undefined;
  const multipartCommands = options.multipartCommands ? multipartCommandsRouter(options.multipartCommands) : undefined;
  const readPace = createPaceWatch(options.readPace ?? DEFAULT_BODY_RATE);
  const queries = options.queries ? queriesRouter(options.queries, readPace, (message, error) => options.log(message, error, {})) : undefined;
  const multipartQueries = options.multipartQueries ? multipartQueriesRouter(options.multipartQueries) : undefined;
  const live = options.liveStatus ? liveStatusRouter(options.liveStatus.streams, options.liveStatus.limits) : undefined;
  const gate = options.blockHeightFresh ? blockHeightGate(options.blockHeightFresh) : undefined;
  const x402 = options.x402 ? x402Router(options.x402) : undefined;
  const publicRouters = [gate, options.uploadGuard, commands, x402, multipartCommands, queries, multipartQueries, live].filter((r) => r !== undefined);
  for (const prefix of PUBLIC) for (const router of publicRouters) app.use(prefix, router);
  // after them: `/price/bytes/:bytes` is served above at both places; `/price/:token/:x` means bytes at the
  // root (Irys) and a token amount under /v1 (turbo-sdk), as each client calls it (payment.ts)
  const turboPayment = options.queries ? turboPaymentRouter(options.queries) : undefined;
  const irysPrice = options.queries ? irysPriceRouter(options.queries) : undefined;
  if (turboPayment) app.use('/v1', turboPayment);
  if (irysPrice) app.use('/', irysPrice);
  // pages for a browser, at the root only
  const dashboard = options.dashboard ? dashboardRouter(options.dashboard) : undefined;
  if (dashboard) app.use(dashboard);

  // What this app serves, as /openapi.json and /api-docs describe it: each router's routes as it
  // registered them (src/http/openapi/serve.ts), with the prefixes it is mounted at.
  const api = new ApiCatalog();
  for (const router of [queries, commands, x402, multipartCommands, multipartQueries, live]) if (router) api.add(PUBLIC, servedRoutes(router));
  if (turboPayment) api.add(['/v1'], servedRoutes(turboPayment));
  if (irysPrice) api.add(['/'], servedRoutes(irysPrice));
  if (admin) api.add(['/v1/admin', '/admin'], servedRoutes(admin));
  if (ops) api.add(['/'], servedRoutes(ops));
  if (dashboard) api.add(['/'], servedRoutes(dashboard));
  const docs = openApiRouter(api, serviceVersion);
  api.add(PUBLIC, servedRoutes(docs));
  for (const prefix of PUBLIC) app.use(prefix, docs);

  app.use((_req, res) => sendError(res, 404, 'Not Found'));
  app.use(errorHandler(options.log));
  return app;
}
