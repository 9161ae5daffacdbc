import type { ErrorRequestHandler, Request, Response } from 'express';
import { requestIdOf } from './requestContext.js';
import { routeOf } from './requestLog.js';
import { ServiceError, ServiceUnavailable, TooManyRequests } from '../domain/errors.js';
import { httpErrorOf } from '../contract/errorMessages.js';
import { BlobStoreUnavailable } from '../ports/blobStore.js';
import { EventStoreUnavailable } from '../ports/eventStore.js';
import { ReadStoreUnavailable } from '../ports/readStore.js';

/** Plain-text error: the body is exactly the message and so is the reason phrase. */
export function sendError(res: Response, status: number, message: string): void {
  res.statusMessage = message;
  res.status(status).set('Content-Type', 'text/plain; charset=utf-8').send(message);
}

function statusOf(error: unknown): [number, string] {
  if (error instanceof ServiceError) return httpErrorOf(error.code);
  // a store that is down, full or read-only: the request may be retried once an operator acts
  if (EventStoreUnavailable.is(error) || ReadStoreUnavailable.is(error) || BlobStoreUnavailable.is(error)) {
    return httpErrorOf('SERVICE_UNAVAILABLE');
  }
  // The router could not percent-decode a path parameter (`/tx/%ZZ/status`): such a path names no
  // resource of any route, so it is an unknown route, not a failure of ours.
  if (error instanceof URIError && (error as { status?: unknown }).status === 400) return [404, 'Not Found'];
  return [500, 'Internal server error'];
}

/**
 * The client left (or the limits cut its connection) and the failure is only that: its request's own
 * line says `aborted`. Not `req.destroyed`: a request whose body was read to the end is destroyed too,
 * and a failure after that is the service's.
 */
const clientLeft = (req: Request, error: unknown): boolean => {
  const code = (error as { code?: unknown } | null)?.code;
  return req.socket.destroyed || code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || (error as Error | null)?.message === 'aborted';
};

/**
 * Every 429 and 503 says when to try again (CONTRACT.md section 10), so that clients do not retry
 * blindly: the error's own figure where its cause knows one (a claim window, a price look-up budget,
 * the gateway's failure pause), else these: a client's own share comes back as its requests end; a
 * store or budget of the service's, after an operator's or the disk's moment.
 */
export const DEFAULT_RETRY_AFTER_SECONDS = { 429: 1, 503: 5 } as const;

function retryAfterOf(error: unknown, status: number): number | undefined {
  if (status !== 429 && status !== 503) return undefined;
  const known = error instanceof TooManyRequests || error instanceof ServiceUnavailable ? error.retryAfterSeconds : undefined;
  return known ?? DEFAULT_RETRY_AFTER_SECONDS[status];
}

export function errorHandler(log: (message: string, error: unknown, fields: Record<string, unknown>) => void): ErrorRequestHandler {
  return (error, req, res, _next) => {
    const [status, message] = statusOf(error);
    // Logged as failures, with the stack and the request id: the unexpected (500) and a store that is
    // down (503). Not a deliberate refusal (a ServiceError, such as the temporary-space budget's 503),
    // nor a client that left or a connection the limits cut: the request's own log line has those.
    if (status >= 500 && !(error instanceof ServiceError) && !clientLeft(req, error)) {
      log(`${req.method} ${routeOf(req)} failed`, error, { requestId: requestIdOf(req), status });
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    // The body may be unread (an early rejection of a large upload): do not keep this connection.
    if (!req.complete) res.set('Connection', 'close');
    const retryAfter = retryAfterOf(error, status);
    if (retryAfter !== undefined) res.set('Retry-After', String(retryAfter));
    sendError(res, status, message);
  };
}
