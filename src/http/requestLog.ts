import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics/metrics.js';
import { secondsSince } from '../metrics/metrics.js';
import { notedSubject, requestIdOf, type RequestSubject } from './requestContext.js';

/** Routes polled by probes and scrapers: logged at debug, so they do not drown the access log. */
const QUIET = new Set(['/health', '/ready', '/metrics']);

/**
 * The route pattern a request matched, never its raw path (ids would explode the metrics'
 * cardinality). A router's mount path is gone from `req.baseUrl` once an error left the router, so
 * the prefix is what precedes the pattern's segments in the path; patterns here have a fixed
 * number of segments (a wildcard one falls back to `baseUrl`). `unmatched`: no route (404, preflight).
 */
export function routeOf(req: Request): string {
  const declared: unknown = req.route?.path;
  const patterns = (Array.isArray(declared) ? declared : [declared]).filter((p): p is string => typeof p === 'string');
  if (patterns.length === 0) return 'unmatched';
  const path = segmentsOf(req.originalUrl.split('?')[0] ?? '');
  // a route declared with several paths: the one whose literal segments end the path
  const pattern = patterns.find((p) => endsWith(path, segmentsOf(p))) ?? patterns[0]!;
  if (/[*{(]/.test(pattern)) return `${req.baseUrl}${pattern}`;
  const prefix = path.slice(0, Math.max(0, path.length - segmentsOf(pattern).length));
  if (prefix.length === 0) return pattern;
  // mount paths are literal (`/v1`, `/admin`) but matched whatever the case: one label per route
  return `/${prefix.join('/').toLowerCase()}${pattern === '/' ? '' : pattern}`;
}

const segmentsOf = (path: string) => path.split('/').filter((s) => s !== '');

/** the path parameters that name a data item or an upload, read off the matched pattern (`:id`, `:uploadId`) */
const SUBJECT_PARAMS: Record<string, keyof RequestSubject> = { id: 'dataItemId', uploadId: 'uploadId' };

/**
 * What the request was about: from the path, where the route's pattern names the item or the upload,
 * and from what the handler noted (the item an upload accepted). Only well-formed ids are kept: a
 * hostile path must not write what it likes into the log.
 */
export function subjectOf(req: Request, res: Response, route: string): RequestSubject {
  const subject: RequestSubject = {};
  const pattern = segmentsOf(route);
  const path = segmentsOf(req.originalUrl.split('?')[0] ?? '');
  if (pattern.length === path.length) {
    pattern.forEach((segment, i) => {
      const key = SUBJECT_PARAMS[segment.slice(1)];
      const value = path[i]!;
      if (segment.startsWith(':') && key && ID.test(value)) subject[key] = value;
    });
  }
  return { ...subject, ...notedSubject(res) };
}
const ID = /^[A-Za-z0-9_-]{1,64}$/;

const endsWith = (path: string[], pattern: string[]) =>
  pattern.length <= path.length && pattern.every((segment, i) => segment.startsWith(':') || segment === path[path.length - pattern.length + i]);

/** Counts the body bytes that reach the request, whoever reads them (or nobody: a refused upload). */
function meterBody(req: Request): { bytes: number } {
  const meter = { bytes: 0 };
  const push = req.push.bind(req);
  req.push = (chunk: unknown, encoding?: BufferEncoding) => {
    if (chunk && typeof (chunk as { length?: unknown }).length === 'number') meter.bytes += (chunk as { length: number }).length;
    return push(chunk, encoding);
  };
  return meter;
}

/**
 * One log line and one metrics sample per request, when its response finished or the client left:
 * method, route pattern, status, duration, bytes in (body) and out (response, headers included),
 * the request id (the same id that becomes the correlation id of the events it appends and that the
 * `x-request-id` response header echoes), and the data item or upload it was about, where known. No
 * header values, no query, no payload.
 */
export function requestLog(log: Logger, metrics: Pick<Metrics, 'http'>): RequestHandler {
  return (req: Request, res: Response, next) => {
    const requestId = requestIdOf(req);
    res.set('x-request-id', requestId);
    const body = meterBody(req);
    observeRequest(log, metrics, req, res, {
      requestId,
      bytesIn: () => body.bytes,
      describe: () => {
        const route = routeOf(req);
        return { route, subject: subjectOf(req, res, route) };
      },
    });
    next();
  };
}

/** what a request log line needs of the request beyond node's own request and response */
export interface ObservedRequest {
  requestId: string;
  bytesIn(): number;
  /** read once the response is over: the route pattern and what the request was about */
  describe(): { route: string; subject: RequestSubject };
}

/**
 * The log line and metrics sample of `requestLog`, for a request whichever way it is served (through
 * Express, or by a route served ahead of it: fastStatus.ts).
 */
export function observeRequest(log: Logger, metrics: Pick<Metrics, 'http'>, req: IncomingMessage, res: ServerResponse, observed: ObservedRequest): void {
  const start = process.hrtime.bigint();
  const socket = req.socket;
  const writtenBefore = socket.bytesWritten;
  res.once('close', () => {
    const seconds = secondsSince(start);
    const { route, subject } = observed.describe();
    const status = res.writableFinished ? String(res.statusCode) : 'aborted';
    metrics.http(req.method ?? '', route, status, seconds);
    const fields = {
      requestId: observed.requestId,
      method: req.method,
      route,
      ...subject,
      status: res.writableFinished ? res.statusCode : 'aborted',
      durationMs: Math.round(seconds * 1e6) / 1e3,
      bytesIn: observed.bytesIn(),
      bytesOut: socket.bytesWritten - writtenBefore,
    };
    if (QUIET.has(route) && res.statusCode < 500) log.debug('request', fields);
    else log.info('request', fields);
  });
}
