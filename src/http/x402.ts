import { Router, type Request, type Response } from 'express';
import { InvalidContentType } from '../domain/errors.js';
import type { X402Outcome, X402Request } from '../app/x402/x402Upload.js';
import { RAW_LENGTH_REQUIRED, type UnsignedRequest } from '../app/x402/unsignedUpload.js';
import { sendError } from './errors.js';
import { noteSubject, requestContextOf } from './requestContext.js';
import { parseParams } from './openapi/route.js';
import { serve } from './openapi/serve.js';
import {
  x402SignedNetworkRoute,
  x402SignedRoute,
  x402SignedSdkRoute,
  x402UnsignedNetworkRoute,
  x402UnsignedRoute,
  x402UnsignedSdkRoute,
} from './openapi/routes/x402.js';

export interface X402Handlers {
  uploadSigned(request: X402Request): Promise<X402Outcome>;
  /** raw data signed by the service (absent: not served) */
  uploadUnsigned?(request: UnsignedRequest): Promise<X402Outcome>;
}

/** the reference's 411 message (ardriveapp/turbo-upload-service src/routes/x402DataItemPost.ts) */
export const LENGTH_REQUIRED = 'Missing Content Length. Content Length is required for x402 upload.';

/** x402 answers: the 402 body is x402's `{ x402Version: 1, accepts, error }` (the reference's `x402PaymentRequiredResponse`) */
function send(res: Response, outcome: X402Outcome, lengthRequired: string): void {
  switch (outcome.kind) {
    case 'lengthRequired':
      return sendError(res, 411, lengthRequired);
    case 'paymentRequired':
      res.status(402).json({ x402Version: 1, accepts: outcome.accepts, error: outcome.error, ...(outcome.payer ? { payer: outcome.payer } : {}) });
      return;
    case 'paymentFailed':
      return sendError(res, 402, 'Payment failed');
    case 'accepted':
    case 'exists': {
      noteSubject(res, { dataItemId: outcome.receipt.id });
      if (outcome.payment) res.set('X-PAYMENT-RESPONSE', outcome.payment.header).set('Access-Control-Expose-Headers', 'X-PAYMENT-RESPONSE');
      if (outcome.kind === 'exists') res.statusMessage = 'Data Item Exists';
      res.status(outcome.kind === 'exists' ? 202 : 200);
      const paid = outcome.payment ? { x402PaymentTxId: outcome.payment.transaction, mUSDCPaid: outcome.payment.usdc } : {};
      res.json({ ...outcome.receipt, ...paid });
      return;
    }
  }
}

function contentTypeOf(req: Request): string | undefined {
  const contentType = req.get('content-type');
  if (contentType === undefined) return undefined;
  if (contentType.split(';')[0]!.trim().toLowerCase() !== 'application/octet-stream') throw new InvalidContentType(contentType);
  return contentType;
}

/** what every x402 upload request carries, read from the request */
function requestOf(req: Request, network: string | undefined, contentType: string | undefined): X402Request {
  const length = req.get('content-length');
  const payment = req.get('x-payment');
  return {
    body: req,
    ...(network !== undefined ? { network } : {}),
    ...(length !== undefined && /^\d+$/.test(length) ? { contentLength: Number(length) } : {}),
    ...(contentType !== undefined ? { contentType } : {}),
    ...(payment !== undefined ? { paymentHeader: payment } : {}),
    resourceUrl: `${req.protocol}://${req.get('host') ?? 'localhost'}${req.originalUrl}`,
    ctx: requestContextOf(req),
  };
}

export function x402Router(handlers: X402Handlers): Router {
  const router = Router();
  const signed = async (req: Request, res: Response, network: string | undefined) => {
    send(res, await handlers.uploadSigned(requestOf(req, network, contentTypeOf(req))), LENGTH_REQUIRED);
  };
  serve(router, x402SignedRoute, (req, res) => signed(req, res, undefined));
  serve(router, x402SignedNetworkRoute, (req, res) => signed(req, res, parseParams(x402SignedNetworkRoute, req).network));
  serve(router, x402SignedSdkRoute, (req, res) => signed(req, res, undefined));
  const uploadUnsigned = handlers.uploadUnsigned;
  if (uploadUnsigned) {
    const unsigned = async (req: Request, res: Response, network: string | undefined) => {
      const tags = req.get('x-data-item-tags');
      // the data's content type, any: it becomes the item's Content-Type tag
      const request = { ...requestOf(req, network, req.get('content-type')), ...(tags !== undefined ? { tagsHeader: tags } : {}) };
      send(res, await uploadUnsigned(request), RAW_LENGTH_REQUIRED);
    };
    serve(router, x402UnsignedRoute, (req, res) => unsigned(req, res, undefined));
    serve(router, x402UnsignedNetworkRoute, (req, res) => unsigned(req, res, parseParams(x402UnsignedNetworkRoute, req).network));
    serve(router, x402UnsignedSdkRoute, (req, res) => unsigned(req, res, undefined));
  }
  return router;
}
