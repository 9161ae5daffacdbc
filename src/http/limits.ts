import { Router, type NextFunction, type Request, type Response } from 'express';
import { ServiceUnavailable, TooManyRequests } from '../domain/errors.js';
import { CHUNK_MAX } from '../domain/upload/ids.js';
import { createBodyRateWatch, type BodyRateLimits } from './bodyRate.js';
import { clientKeyOf } from '../domain/clientKey.js';
import { continueIfExpected } from './expectContinue.js';
import type { Refusal, TempSpace } from './tempSpace.js';
import { uploadChunkRoute } from './openapi/routes/multipart.js';
import { uploadRoute, uploadWithTokenRoute } from './openapi/routes/public.js';
import { X402_UNSIGNED_ROUTES, X402_UPLOAD_ROUTES } from './openapi/routes/x402.js';
import { inFrontOf } from './openapi/serve.js';

/**
 * Limits in front of the upload routes (single `POST /tx[/:token]`, chunk and finalize), checked
 * before a byte of the body is read:
 * - uploads in flight per client (`req.ip`, an IPv6 /64): past `maxUploadsPerClient`, 429;
 * - the temporary-space budget (tempSpace.ts): an upload whose declared length does not fit, 503
 *   (retryable), or 429 when it is its client's share that it does not fit; one without a declared
 *   length is refused the same way as soon as its bytes pass, and the handler deletes what it had
 *   written;
 * - the minimum body rate (bodyRate.ts): a body too slow is cut.
 */
export interface UploadLimits {
  /** 0: no limit */
  maxUploadsPerClient: number;
  bodyRate: BodyRateLimits;
  /** a declared length above this is refused by the route itself (413), not by the budget */
  maxDataItemSize: number;
  /** the x402 upload routes are served (X402_NETWORKS; `unsigned` too with X402_DATA_ITEM_KEY_FILE): single uploads too */
  x402?: { unsigned: boolean };
}

export interface UploadGuard {
  /** the middleware, mounted in front of the upload routes (root and /v1) */
  router: Router;
  /** uploads in flight per client key (for tests and metrics) */
  inFlight(): ReadonlyMap<string, number>;
  stop(): void;
}

type Kind = 'single' | 'chunk' | 'finalize';

export function createUploadGuard(limits: UploadLimits, tempSpace: TempSpace): UploadGuard {
  const perClient = new Map<string, number>();
  const rate = createBodyRateWatch(limits.bodyRate);

  const guard = (kind: Kind) => (req: Request, res: Response, next: NextFunction) => {
    const key = clientKeyOf(req.ip ?? req.socket.remoteAddress);
    const count = perClient.get(key) ?? 0;
    if (limits.maxUploadsPerClient > 0 && count >= limits.maxUploadsPerClient) {
      next(new TooManyRequests(`${count} uploads in flight from ${key}`));
      return;
    }
    perClient.set(key, count + 1);
    const done: (() => void)[] = [
      () => {
        const left = (perClient.get(key) ?? 1) - 1;
        if (left === 0) perClient.delete(key);
        else perClient.set(key, left);
      },
    ];
    // 'close' comes once whatever happens: answered, refused, or the connection cut
    res.once('close', () => {
      for (const release of done) release();
    });
    if (kind === 'finalize') {
      next();
      return;
    }

    const declared = declaredLength(req);
    const max = kind === 'single' ? limits.maxDataItemSize : CHUNK_MAX;
    // no declared length (or an unusable one the route refuses itself): counted as the bytes come
    let taken = 0;
    if (declared !== undefined && declared <= max) {
      const refusal = tempSpace.tryTake(key, declared);
      if (refusal) {
        next(refused(refusal, key, `${declared} bytes do not fit`));
        return;
      }
      taken = declared;
    }
    // a recorded chunk's bytes are counted at rest from then on (the upload tally), not in flight
    done.push(() => tempSpace.give(key, taken));

    let received = 0;
    const source = () => req.iterator({ destroyOnReturn: false });
    const counted = async function* () {
      continueIfExpected(req);
      for await (const chunk of source() as AsyncIterable<Uint8Array>) {
        received += chunk.length;
        if (received > taken) {
          const more = received - taken;
          const refusal = tempSpace.tryTake(key, more);
          if (refusal) throw refused(refusal, key, `${received} bytes received`);
          taken += more;
        }
        yield chunk;
      }
    };
    // The handlers read the body as an async iterable (`for await (... of req)`): this is where
    // every upload's bytes pass, counted. Not destroyed when a handler stops early (a refused
    // item): the error answer then still reaches the client before the connection is closed.
    Object.defineProperty(req, Symbol.asyncIterator, { value: counted, configurable: true });
    const unwatch = rate.watch(req, () => received);
    done.push(unwatch);
    req.once('end', unwatch);
    next();
  };

  const single = guard('single');
  const chunk = guard('chunk');
  const finalize = guard('finalize');
  const router = Router();
  inFrontOf(
    router,
    [uploadRoute, uploadWithTokenRoute, ...(limits.x402 ? X402_UPLOAD_ROUTES : []), ...(limits.x402?.unsigned ? X402_UNSIGNED_ROUTES : [])],
    single,
  );
  // the chunk route's path also matches the finalize routes (`-1`, `finalize`: no body); a chunk's
  // offset is digits (anything else the route refuses)
  inFrontOf(router, [uploadChunkRoute], (req, res, next) => (/^\d+$/.test(String(req.params.offset)) ? chunk : finalize)(req, res, next));
  return { router, inFlight: () => perClient, stop: () => rate.stop() };
}

/** the budget or the disk: 503, retryable; the client's own share: 429, until its uploads end */
function refused(refusal: Refusal, client: string, what: string): Error {
  return refusal === 'client' ? new TooManyRequests(`temporary space of ${client}: ${what}`) : new ServiceUnavailable(`temporary space (${refusal}): ${what}`);
}

function declaredLength(req: Request): number | undefined {
  const length = req.get('content-length');
  return length !== undefined && /^\d{1,16}$/.test(length) ? Number(length) : undefined;
}
