import { Router, type Request, type Response } from 'express';
import { InvalidToken, UploadNotFound } from '../domain/errors.js';
import { Token } from '../domain/ids.js';
import { UploadId, CHUNK_MAX, CHUNK_MIN, DEFAULT_VIEW_CHUNK_SIZE } from '../domain/upload/ids.js';
import type { RequestContext } from '../app/context.js';
import type { FinalizeOutcome } from '../app/multipart/commands.js';
import type { UploadDocument } from '../../projections/uploads.js';
import { paidByOf } from './commands.js';
import { requestContextOf } from './requestContext.js';

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

export interface MultipartQueryHandlers {
  upload(uploadId: string): Promise<UploadDocument | undefined>;
}

const tokenOf = (req: Request): string => {
  const token = Token.safeParse(req.params.token);
  if (!token.success) throw new InvalidToken(String(req.params.token));
  return token.data;
};

/** An id of another shape cannot be an upload: 404 like an unknown one (so `-1` never reads as an id). */
const uploadIdOf = (req: Request): string => {
  const id = UploadId.safeParse(req.params.uploadId);
  if (!id.success) throw new UploadNotFound(String(req.params.uploadId));
  return id.data;
};

function sendFinalized(res: Response, outcome: FinalizeOutcome & { kind: 'finalized' }) {
  if (outcome.existed) res.statusMessage = 'Data Item Exists';
  res.status(outcome.existed ? 202 : 200).json({ id: outcome.id, data: outcome.receipt });
}

/** Endpoints 5, 7, 8 and 10 (CONTRACT.md section 4). Literal segments come before parameters. */
export function multipartCommandsRouter(handlers: MultipartCommandHandlers): Router {
  const router = Router();
  const create = async (req: Request, res: Response, token: string) => {
    const chunkSize = typeof req.query.chunkSize === 'string' ? req.query.chunkSize : undefined;
    res.json(await handlers.create({ token, ...(chunkSize !== undefined ? { chunkSize } : {}), ctx: requestContextOf(req) }));
  };
  router.get('/chunks/-1/-1', (req, res) => create(req, res, 'arweave'));
  router.get('/chunks/:token/-1/-1', (req, res) => create(req, res, tokenOf(req)));

  const finalize = async (req: Request, res: Response, mode: 'sync' | 'async') => {
    tokenOf(req);
    const outcome = await handlers.finalize({ uploadId: uploadIdOf(req), mode, paidBy: paidByOf(req), ctx: requestContextOf(req) });
    if (outcome.kind === 'finalized') sendFinalized(res, outcome);
    else res.status(202).end();
  };
  router.post('/chunks/:token/:uploadId/-1', (req, res) => finalize(req, res, 'sync'));
  router.post('/chunks/:token/:uploadId/finalize', (req, res) => finalize(req, res, 'async'));

  router.post('/chunks/:token/:uploadId/:offset', async (req, res) => {
    tokenOf(req);
    await handlers.receiveChunk({
      uploadId: uploadIdOf(req),
      offset: req.params.offset as string,
      contentLength: req.get('content-length'),
      body: req,
      paidBy: paidByOf(req),
      ctx: requestContextOf(req),
    });
    res.status(200).end();
  });
  return router;
}

/** Endpoints 6 and 9, from the uploads read model. */
export function multipartQueriesRouter(handlers: MultipartQueryHandlers): Router {
  const router = Router();
  const live = async (req: Request) => {
    tokenOf(req);
    const id = uploadIdOf(req);
    const doc = await handlers.upload(id);
    if (!doc) throw new UploadNotFound(id);
    return { id, doc };
  };
  router.get('/chunks/:token/:uploadId/-1', async (req, res) => {
    const { id, doc } = await live(req);
    if (doc.status === 'EXPIRED') throw new UploadNotFound(id);
    const largest = doc.chunks.reduce((max, [, length]) => Math.max(max, length), 0);
    res.json({ id, min: CHUNK_MIN, max: CHUNK_MAX, size: doc.chunkSize ?? (largest || DEFAULT_VIEW_CHUNK_SIZE), chunks: doc.chunks });
  });
  router.get('/chunks/:token/:uploadId/status', async (req, res) => {
    const { doc } = await live(req);
    res.json({ status: doc.status, timestamp: doc.statusChangedAt, ...(doc.receipt ? { receipt: doc.receipt } : {}) });
  });
  return router;
}
