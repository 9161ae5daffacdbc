import { randomUUID } from 'node:crypto';
import type { Request } from 'express';
import type { RequestContext } from '../app/context.js';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * The request's id: the caller's `x-request-id` when well-formed, else a new uuid. Computed once per
 * request and kept in `res.locals`, so the request's log line, its `x-request-id` response header
 * and the correlation id of the events it appends are one id.
 */
export function requestIdOf(req: Request): string {
  const locals = req.res?.locals;
  if (typeof locals?.requestId === 'string') return locals.requestId;
  const requestId = requestIdFrom(req.get('x-request-id'));
  if (locals) locals.requestId = requestId;
  return requestId;
}

/** the caller's `x-request-id` header value when well-formed, else a new uuid */
export const requestIdFrom = (given: string | undefined): string => (given && REQUEST_ID.test(given) ? given : randomUUID());

/** The request id becomes the events' correlation id. */
export function requestContextOf(req: Request): RequestContext {
  return {
    requestId: requestIdOf(req),
    ...(req.ip ? { clientAddress: req.ip } : {}),
    ...(req.get('user-agent') ? { userAgent: req.get('user-agent')! } : {}),
  };
}

/** What a request was about, for its log line: the data item and the multi-part upload, where known. */
export interface RequestSubject {
  dataItemId?: string;
  uploadId?: string;
}

/**
 * Notes what the request turned out to be about, when its path does not say it (the item a
 * `POST /tx` accepted, the upload a creation made, the item a finalize produced).
 */
export function noteSubject(res: { locals: Record<string, unknown> }, subject: RequestSubject): void {
  res.locals.subject = { ...(res.locals.subject as RequestSubject | undefined), ...subject };
}

/** the subject noted by the handler */
export const notedSubject = (res: { locals: Record<string, unknown> }): RequestSubject => (res.locals.subject as RequestSubject | undefined) ?? {};
