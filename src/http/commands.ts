import { Router, type Request, type Response } from 'express';
import { DataItemTooLarge, InvalidContentType, InvalidRequest } from '../domain/errors.js';
import { DEFAULT_TOKEN } from '../domain/ids.js';
import { parseAccountAddress } from '../domain/account/ids.js';
import type { AcceptOutcome } from '../app/acceptance/acceptDataItem.js';
import { metadataOf } from '../app/context.js';
import type { TopUps } from '../app/accounts/topUps.js';
import type { UploadDataItem } from '../app/acceptance/singleUpload.js';
import { readSmallBody } from './smallBody.js';
import { claimRateGuard } from './claimRate.js';
import { topUpAnswerBody } from './topUpBody.js';
import { noteSubject, requestContextOf } from './requestContext.js';
import { parseParams } from './openapi/route.js';
import { inFrontOf, serve } from './openapi/serve.js';
import { topUpRoute, uploadRoute, uploadWithTokenRoute } from './openapi/routes/public.js';

export interface CommandHandlers {
  uploadDataItem: UploadDataItem;
  /** top-ups with the users' own tokens (absent: the route is not served) */
  topUps?: Pick<TopUps, 'claim'>;
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

/**
 * `x-paid-by` (turbo-sdk) and `x-irys-paid-by` (Irys, its `UploadHeaders.PAID_BY` in
 * Irys-xyz/arweave-js-sdk src/common/types.ts at 985ba09): comma-separated payer addresses, in the
 * order they should be tried, `x-paid-by`'s first; junk is ignored.
 */
export function paidByOf(req: Request): string[] {
  const headers = [req.get('x-paid-by'), req.get('x-irys-paid-by')].filter((h): h is string => !!h);
  if (headers.length === 0) return [];
  const payers = headers
    .join(',')
    .split(',')
    .map(parseAccountAddress)
    .filter((a): a is string => a !== undefined);
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

export function commandsRouter(handlers: CommandHandlers, limits: { maxDataItemSize: number; topUpClaimsPerClientPerMinute?: number }): Router {
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
    // the reference adds `createdApproval` / `revokedApprovals` to the receipt (turbo-upload-service src/routes/dataItemPost.ts)
    sendAcceptOutcome(res, outcome, { ...outcome.receipt, ...outcome.approvals });
  };

  serve(router, uploadRoute, (req, res) => upload(req, res, false));
  serve(router, uploadWithTokenRoute, (req, res) => upload(req, res, true));
  const topUps = handlers.topUps;
  if (topUps) {
    inFrontOf(router, [topUpRoute], claimRateGuard({ perMinute: limits.topUpClaimsPerClientPerMinute ?? 0 }));
    serve(router, topUpRoute, async (req, res) => {
      const { token } = parseParams(topUpRoute, req);
      const txId = txIdOf(await readSmallBody(req, TOP_UP_BODY_BYTES));
      const outcome = await topUps.claim(token, txId, metadataOf(requestContextOf(req)));
      res.json(topUpAnswerBody(outcome));
    });
  }
  return router;
}

/** `{ "tx_id": "..." }` is some 100 bytes */
const TOP_UP_BODY_BYTES = 4096;

/** the claimed transaction id of a top-up body, whatever its content type (turbo-sdk sends the JSON as bytes) */
function txIdOf(body: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new InvalidRequest('a top-up body is JSON');
  }
  const txId = (parsed as { tx_id?: unknown } | null)?.tx_id;
  if (typeof txId !== 'string' || txId.length === 0 || txId.length > 128) throw new InvalidRequest('a top-up body names its tx_id');
  return txId;
}
