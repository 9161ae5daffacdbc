import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';

/**
 * The CORS headers of every answer (before any other header but the request id), and `nosniff`: a
 * browser takes each answer as the type it says, never guesses script or HTML out of bytes a client
 * uploaded.
 */
export function corsHeaders(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  const origin = req.headers.origin;
  res.setHeader('Access-Control-Allow-Origin', origin ?? '*');
  // a browser client can read the request id it may quote to an operator (it is the events' correlation id)
  res.setHeader('Access-Control-Expose-Headers', 'x-request-id');
  if (origin) {
    res.setHeader('Access-Control-Allow-Credentials', 'true');
    res.appendHeader('Vary', 'Origin');
  }
}

/** Any origin, credentials allowed (CONTRACT.md section 1); preflight answers 204. */
export const cors: RequestHandler = (req, res, next) => {
  corsHeaders(req, res);
  if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) {
    res.set('Access-Control-Allow-Methods', 'GET,POST,PUT,DELETE,OPTIONS');
    res.set('Access-Control-Allow-Headers', req.headers['access-control-request-headers'] ?? '*');
    res.set('Access-Control-Max-Age', '86400');
    res.status(204).end();
    return;
  }
  next();
};
