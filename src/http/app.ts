import express, { type Express } from 'express';
import { commandsRouter, type CommandHandlers } from './commands.js';
import { queriesRouter, type QueryHandlers } from './queries.js';
import { cors } from './cors.js';
import { adminRouter, type AdminDeps } from './admin.js';
import {
  multipartCommandsRouter,
  multipartQueriesRouter,
  type MultipartCommandHandlers,
  type MultipartQueryHandlers,
} from './multipart.js';
import { errorHandler, sendError } from './errors.js';

export interface AppOptions {
  commands?: CommandHandlers;
  queries?: QueryHandlers;
  multipartCommands?: MultipartCommandHandlers;
  multipartQueries?: MultipartQueryHandlers;
  /** the operator API; absent (no ADMIN_TOKEN configured) means /admin answers 404 */
  admin?: AdminDeps;
  limits: { maxDataItemSize: number };
  log: (message: string, error?: unknown) => void;
}

/** Commands and queries are separate routers; every route is served at the root and under /v1. */
export function createApp(options: AppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', 'loopback');
  app.use(cors);
  if (options.admin) app.use(['/v1/admin', '/admin'], adminRouter(options.admin));
  for (const prefix of ['/v1', '/']) {
    if (options.commands) app.use(prefix, commandsRouter(options.commands, options.limits));
    if (options.multipartCommands) app.use(prefix, multipartCommandsRouter(options.multipartCommands));
    if (options.queries) app.use(prefix, queriesRouter(options.queries));
    if (options.multipartQueries) app.use(prefix, multipartQueriesRouter(options.multipartQueries));
  }
  app.use((_req, res) => sendError(res, 404, 'Not Found'));
  app.use(errorHandler(options.log));
  return app;
}
