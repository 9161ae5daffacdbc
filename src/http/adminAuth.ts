import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { Unauthorized } from '../domain/errors.js';

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/**
 * `Authorization: Bearer <token>`, compared in constant time. Both sides are hashed first so the
 * comparison always runs over 32 bytes and neither the token's length nor a common prefix leaks.
 */
export function bearerGuard(token: string): RequestHandler {
  const expected = digest(token);
  return (req, res, next) => {
    const presented = /^Bearer +(\S+) *$/i.exec(req.get('authorization') ?? '')?.[1];
    if (presented !== undefined && timingSafeEqual(digest(presented), expected)) return next();
    res.set('WWW-Authenticate', 'Bearer');
    throw new Unauthorized('missing or wrong admin bearer token');
  };
}
