import { Router, type Request, type Response } from 'express';
import { MethodNotAllowed, UploadNotFound } from '../domain/errors.js';
import { CHUNK_MAX, CHUNK_MIN, DEFAULT_VIEW_CHUNK_SIZE } from '../domain/upload/ids.js';
import type { RequestContext } from '../app/context.js';
import type { FinalizeOutcome } from '../app/multipart/commands.js';
import type { MultipartQueryHandlers } from '../queries/types.js';
import type { UploadDocument } from '../../projections/uploads.js';
import { paidByOf } from './commands.js';
import { noteSubject, requestContextOf } from './requestContext.js';
import { parseParams } from './openapi/route.js';
import { serve } from './openapi/serve.js';
import {
  createUploadRoute,
  createUploadWithTokenRoute,
  finalizeUploadAsyncRoute,
  finalizeUploadRoute,
  uploadChunkRoute,
  uploadStatusRoute,
  viewUploadRoute,
} from './openapi/routes/multipart.js';

export interface MultipartCommandHandlers {
  create(input: { token: string; chunkSize?: string; ctx: RequestContext }): Promise<object>;
  receiveChunk(input: {
    uploadId: string;
    offset: string;
    contentLength: string | undefined;
    body: AsyncIterable<Uint8Array>;
    paidBy: string[];
    ctx: RequestContext;
  }): Promise<void>;
  finalize(input: { uploadId: string; mode: 'sync' | 'async'; paidBy: string[]; ctx: RequestContext }): Promise<FinalizeOutcome>;
}

/**
 * A route with a token and an upload id, parsed in that order as its description says: an id of
 * another shape cannot be an upload, so it is 404 like an unknown one (and `-1` never reads as an id).
 */
type UploadRoute = typeof finalizeUploadRoute;

function sendFinalized(res: Response, outcome: FinalizeOutcome & { kind: 'finalized' }) {
  if (outcome.existed) res.statusMessage = 'Data Item Exists';
  // `createdApproval` / `revokedApprovals` beside the receipt's fields, as the single upload answers them
  res.status(outcome.existed ? 202 : 200).json({ id: outcome.id, data: { ...outcome.receipt, ...outcome.approvals } });
}

/** Endpoints 5, 7, 8 and 10 (CONTRACT.md section 4). Literal segments come before parameters. */
export function multipartCommandsRouter(handlers: MultipartCommandHandlers): Router {
  const router = Router();
  const create = async (req: Request, res: Response, token: string) => {
    // Express serves HEAD with the GET route: a probe must not create an upload (and hold a client's quota)
    if (req.method === 'HEAD') {
      res.set('Allow', 'GET');
      throw new MethodNotAllowed(`HEAD ${req.path}`);
    }
    // a repeated `?chunkSize=` (an array) is not a size either: it must fail as one, not be ignored
    const given = req.query.chunkSize;
    const chunkSize = given === undefined ? undefined : String(given);
    const created = await handlers.create({ token, ...(chunkSize !== undefined ? { chunkSize } : {}), ctx: requestContextOf(req) });
    if ('id' in created && typeof created.id === 'string') noteSubject(res, { uploadId: created.id });
    res.json(created);
  };
  serve(router, createUploadRoute, (req, res) => create(req, res, 'arweave'));
  serve(router, createUploadWithTokenRoute, (req, res) => create(req, res, parseParams(createUploadWithTokenRoute, req).token));

  const finalize = async (req: Request, res: Response, mode: 'sync' | 'async', route: UploadRoute) => {
    const { uploadId } = parseParams(route, req);
    const outcome = await handlers.finalize({ uploadId, mode, paidBy: paidByOf(req), ctx: requestContextOf(req) });
    if (outcome.kind === 'finalized') {
      noteSubject(res, { dataItemId: outcome.id });
      sendFinalized(res, outcome);
    } else res.status(202).end();
  };
  serve(router, finalizeUploadRoute, (req, res) => finalize(req, res, 'sync', finalizeUploadRoute));
  serve(router, finalizeUploadAsyncRoute, (req, res) => finalize(req, res, 'async', finalizeUploadAsyncRoute));

  serve(router, uploadChunkRoute, async (req, res) => {
    const { uploadId, offset } = parseParams(uploadChunkRoute, req);
    await handlers.receiveChunk({
      uploadId,
      offset,
      contentLength: req.get('content-length'),
      body: req,
      paidBy: paidByOf(req),
      ctx: requestContextOf(req),
    });
    res.status(200).end();
  });
  return router;
}

/** the upload status answer's body (also each message of the upload's status stream: liveStatus.ts) */
export const uploadStatusBody = (doc: UploadDocument) => ({
  status: doc.status,
  timestamp: doc.statusChangedAt,
  // turbo-sdk's multi-part upload returns this receipt as the upload's answer (its chunked.ts
  // `finalizeUpload`), where shareCredits / revokeCredits read `createdApproval` / `revokedApprovals`
  ...(doc.receipt ? { receipt: { ...doc.receipt, ...doc.approvals } } : {}),
});

/** Endpoints 6 and 9, from the uploads read model. */
export function multipartQueriesRouter(handlers: MultipartQueryHandlers): Router {
  const router = Router();
  const live = async (req: Request, route: UploadRoute) => {
    const id = parseParams(route, req).uploadId;
    const doc = await handlers.upload(id);
    if (!doc) throw new UploadNotFound(id);
    return { id, doc };
  };
  serve(router, viewUploadRoute, async (req, res) => {
    const { id, doc } = await live(req, viewUploadRoute);
    if (doc.status === 'EXPIRED') throw new UploadNotFound(id);
    const chunks = await handlers.chunks(id);
    const largest = chunks.reduce((max, [, length]) => Math.max(max, length), 0);
    res.json({ id, min: CHUNK_MIN, max: CHUNK_MAX, size: doc.chunkSize ?? (largest || DEFAULT_VIEW_CHUNK_SIZE), chunks });
  });
  serve(router, uploadStatusRoute, async (req, res) => {
    const { doc } = await live(req, uploadStatusRoute);
    res.json(uploadStatusBody(doc));
  });
  return router;
}
