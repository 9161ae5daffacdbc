import { Router, type Request, type Response } from 'express';
import { DataItemTooLarge, InvalidContentType } from '../domain/errors.js';
import { DEFAULT_TOKEN } from '../domain/ids.js';
import { parseAccountAddress } from '../domain/account/ids.js';
import type { AcceptOutcome } from '../app/acceptDataItem.js';
import type { RequestContext } from '../app/context.js';
import { noteSubject, requestContextOf } from './requestContext.js';
import { parseParams } from './openapi/route.js';
import { serve } from './openapi/serve.js';
import { uploadRoute, uploadWithTokenRoute } from './openapi/routes/public.js';

export interface CommandHandlers {
  uploadDataItem(input: {
    body: AsyncIterable<Uint8Array>;
    token: string;
    paidBy: string[];
    /** the declared content-length, when the client sent one */
    contentLength?: number;
    ctx: RequestContext;
  }): Promise<AcceptOutcome>;
}

/** Throws before a byte of the body is read when the headers already rule the upload out. */
function checkUploadHeaders(req: Request, maxDataItemSize: number): void {
  const contentType = req.get('content-type');
  if (contentType !== undefined) {
    const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
    if (mediaType !== 'application/octet-stream') throw new InvalidContentType(contentType);
  }
  const length = req.get('content-length');
  if (length !== undefined && Number(length) > maxDataItemSize) throw new DataItemTooLarge(`content-length ${length}`);
}

/** `x-paid-by`: comma-separated payer addresses, in the order they should be tried; junk is ignored. */
export function paidByOf(req: Request): string[] {
  const header = req.get('x-paid-by');
  if (!header) return [];
  const payers = header.split(',').map(parseAccountAddress).filter((a): a is string => a !== undefined);
  return [...new Set(payers)].slice(0, MAX_PAYERS);
}
const MAX_PAYERS = 10;

export function sendAcceptOutcome(res: Response, outcome: AcceptOutcome, body: unknown = outcome.receipt): void {
  if (outcome.kind === 'exists') {
    res.statusMessage = 'Data Item Exists';
    res.status(202);
  } else {
    res.status(200);
  }
  res.json(body);
}

export function commandsRouter(handlers: CommandHandlers, limits: { maxDataItemSize: number }): Router {
  const router = Router();

  const upload = async (req: Request, res: Response, named: boolean) => {
    const token = named ? parseParams(uploadWithTokenRoute, req).token : DEFAULT_TOKEN;
    checkUploadHeaders(req, limits.maxDataItemSize);
    const length = req.get('content-length');
    const outcome = await handlers.uploadDataItem({
      body: req,
      token,
      paidBy: paidByOf(req),
      ...(length !== undefined && /^\d+$/.test(length) ? { contentLength: Number(length) } : {}),
      ctx: requestContextOf(req),
    });
    noteSubject(res, { dataItemId: outcome.receipt.id });
    sendAcceptOutcome(res, outcome);
  };

  serve(router, uploadRoute, (req, res) => upload(req, res, false));
  serve(router, uploadWithTokenRoute, (req, res) => upload(req, res, true));
  return router;
}
