import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics/metrics.js';
import type { DataItemId } from '../domain/ids.js';
import type { QueryHandlers } from '../queries/types.js';
import { corsHeaders } from './cors.js';
import { statusBody, statusCacheControl } from './queries.js';
import { requestIdFrom } from './requestContext.js';
import { observeRequest } from './requestLog.js';

/** the status route's canonical paths, as the queries router serves them, with a well-formed id */
const STATUS_PATH = /^(\/v1)?\/tx\/([A-Za-z0-9_-]{43})\/status$/;

export interface FastStatusDeps {
  txStatus: QueryHandlers['txStatus'];
  observe?: { log: Logger; metrics: Pick<Metrics, 'http'> };
}

/**
 * The status query, served ahead of Express. Clients poll it (turbo-sdk and the Irys clients after
 * each upload, dashboards), and Express's routing through the app's layers cost more CPU than the
 * query itself: about three quarters of the route's time under load (scripts/bench/status-queries.ts).
 *
 * Only the plain form is served here: GET or HEAD of `/tx/<id>/status` or `/v1/tx/<id>/status`,
 * exactly so written (no query string, no trailing slash, no other case), without a body, for an
 * item the read model knows. Anything else (an unknown id, a store that fails, any other form of
 * the path) goes to the app, which answers it as it always has. What this answers is the router's
 * own answer, byte for byte but for the Date: the same headers in the same order (request id, CORS,
 * Cache-Control, Content-Type, Content-Length), body, log line and metrics sample
 * (test/http/fastStatus.test.ts compares them).
 */
export function withFastStatus(app: RequestListener, deps: FastStatusDeps): RequestListener {
  const serveFast = async (req: IncomingMessage, res: ServerResponse, prefix: string, id: DataItemId): Promise<boolean> => {
    const doc = await deps.txStatus(id);
    if (!doc) return false;
    const requestId = requestIdFrom(headerValue(req.headers['x-request-id']));
    if (deps.observe) {
      const route = `${prefix}/tx/:id/status`;
      observeRequest(deps.observe.log, deps.observe.metrics, req, res, {
        requestId,
        bytesIn: () => 0,
        describe: () => ({ route, subject: { dataItemId: id } }),
      });
      res.setHeader('x-request-id', requestId);
    }
    corsHeaders(req, res);
    res.setHeader('Cache-Control', statusCacheControl(doc));
    const body = Buffer.from(JSON.stringify(statusBody(doc)));
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', body.length);
    res.statusCode = 200;
    if (req.method === 'HEAD') res.end();
    else res.end(body);
    return true;
  };
  return (req, res) => {
    const match = (req.method === 'GET' || req.method === 'HEAD') && !hasBody(req) ? STATUS_PATH.exec(req.url ?? '') : null;
    if (!match) {
      app(req, res);
      return;
    }
    // the pattern is DataItemId's own
    serveFast(req, res, match[1] ?? '', match[2]! as DataItemId).then(
      (served) => {
        if (!served) app(req, res);
      },
      // a store that fails: the app meets the same failure and answers it (503, logged)
      () => app(req, res),
    );
  };
}

const headerValue = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
const hasBody = (req: IncomingMessage) => req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
