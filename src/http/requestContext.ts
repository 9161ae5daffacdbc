import { randomUUID } from 'node:crypto';
import type { Request } from 'express';
import type { RequestContext } from '../app/context.js';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** The request id (the caller's `x-request-id` when well-formed) becomes the events' correlation id. */
export function requestContextOf(req: Request): RequestContext {
  const given = req.get('x-request-id');
  return {
    requestId: given && REQUEST_ID.test(given) ? given : randomUUID(),
    ...(req.ip ? { clientAddress: req.ip } : {}),
    ...(req.get('user-agent') ? { userAgent: req.get('user-agent')! } : {}),
  };
}
