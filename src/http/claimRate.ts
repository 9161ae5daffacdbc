import type { NextFunction, Request, Response } from 'express';
import { TooManyRequests } from '../domain/errors.js';
import { clientKeyOf } from '../domain/clientKey.js';
import { createLru } from '../lru.js';

/**
 * Top-up claims per client (`req.ip`, an IPv6 /64: clientKeyOf), at most `perMinute` in the minute
 * from a client's first claim in it. Each claim of a transaction the service has not seen costs a
 * request to the chain's provider, which the operator pays for and which limits it: without this,
 * one client's stream of made-up ids becomes as many requests there. Refused before the body is
 * read, with the seconds until the client's minute ends as `Retry-After`.
 *
 * Windows run on a monotonic clock; at most `maxClients` are remembered, the least recent dropped
 * first (a client whose window was dropped starts a new one).
 */
export interface ClaimRateLimits {
  /** 0: no limit */
  perMinute: number;
  maxClients?: number;
  /** monotonic milliseconds (default performance.now) */
  now?: () => number;
}

const WINDOW_MS = 60_000;

export function claimRateGuard({ perMinute, maxClients = 100_000, now = () => performance.now() }: ClaimRateLimits) {
  const windows = createLru<string, { start: number; count: number }>(maxClients);
  return (req: Request, res: Response, next: NextFunction): void => {
    if (perMinute <= 0) {
      next();
      return;
    }
    const key = clientKeyOf(req.ip ?? req.socket.remoteAddress);
    const at = now();
    let window = windows.get(key);
    if (!window || at - window.start >= WINDOW_MS) {
      window = { start: at, count: 0 };
      windows.set(key, window);
    }
    if (window.count >= perMinute) {
      next(new TooManyRequests(`${window.count} top-up claims from ${key} this minute`, Math.max(1, Math.ceil((window.start + WINDOW_MS - at) / 1000))));
      return;
    }
    window.count += 1;
    next();
  };
}
