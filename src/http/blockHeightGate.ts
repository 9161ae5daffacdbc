import { Router, type NextFunction, type Request, type Response } from 'express';
import { ServiceUnavailable } from '../domain/errors.js';
import { createUploadRoute, createUploadWithTokenRoute, finalizeUploadAsyncRoute, finalizeUploadRoute } from './openapi/routes/multipart.js';
import { uploadRoute, uploadWithTokenRoute } from './openapi/routes/public.js';
import { inFrontOf } from './openapi/serve.js';

/** the routes whose answer is (or leads to) a signed receipt */
const RECEIPT_ROUTES = [uploadRoute, uploadWithTokenRoute, createUploadRoute, createUploadWithTokenRoute, finalizeUploadRoute, finalizeUploadAsyncRoute];

/**
 * Refuses the uploads that would end in a receipt, before a byte of their body is read, while no
 * block height fresh enough to sign one is known (no gateway answer yet, or the last one older than
 * BLOCK_HEIGHT_MAX_AGE_MS): 503 `Service unavailable`, retryable. A receipt's `deadlineHeight` is
 * that height plus an offset; signing one on a made-up height would promise a deadline already past.
 * Single uploads, multi-part creation and finalize are refused; chunks of an upload already created
 * are still taken (no receipt comes of them, and its finalize waits for the height).
 */
export function blockHeightGate(fresh: () => boolean): Router {
  const gate = (req: Request, _res: Response, next: NextFunction) => {
    // Express serves HEAD with the GET route: upload creation answers it 405 itself, creating nothing
    if (req.method === 'HEAD' || fresh()) {
      next();
      return;
    }
    next(new ServiceUnavailable('no block height read from the gateway recently enough to sign a receipt'));
  };
  const router = Router();
  inFrontOf(router, RECEIPT_ROUTES, gate);
  return router;
}
