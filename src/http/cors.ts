import type { RequestHandler } from 'express';

/** Any origin, credentials allowed (CONTRACT.md section 1); preflight answers 204. */
export const cors: RequestHandler = (req, res, next) => {
  const origin = req.headers.origin;
  res.set('Access-Control-Allow-Origin', origin ?? '*');
  // a browser client can read the request id it may quote to an operator (it is the events' correlation id)
  res.set('Access-Control-Expose-Headers', 'x-request-id');
  if (origin) {
    res.set('Access-Control-Allow-Credentials', 'true');
    res.append('Vary', 'Origin');
  }
  if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) {
    res.set('Access-Control-Allow-Methods', 'GET,POST,PUT,DELETE,OPTIONS');
    res.set('Access-Control-Allow-Headers', req.headers['access-control-request-headers'] ?? '*');
    res.set('Access-Control-Max-Age', '86400');
    res.status(204).end();
    return;
  }
  next();
};
