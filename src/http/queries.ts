import { Router } from 'express';
import { TxNotFound } from '../domain/errors.js';
import type { TxStatusDocument } from '../../projections/txStatus.js';
import type { QueryHandlers } from '../queries/types.js';
import { balanceBodyOfDocument } from './balanceBody.js';
import { parseParams } from './openapi/route.js';
import { serve } from './openapi/serve.js';
import { balanceRoute, serviceIndexRoute, serviceInfoRoute, txOffsetsRoute, txStatusRoute } from './openapi/routes/public.js';

const statusBody = (doc: TxStatusDocument) => ({
  status: doc.status,
  info: doc.info,
  winc: doc.winc,
  ...(doc.bundleId !== undefined ? { bundleId: doc.bundleId } : {}),
  ...(doc.startOffsetInRootBundle !== undefined ? { startOffsetInRootBundle: doc.startOffsetInRootBundle } : {}),
  rawContentLength: doc.rawContentLength,
  payloadContentType: doc.payloadContentType,
  payloadDataStart: doc.payloadDataStart,
  payloadContentLength: doc.payloadContentLength,
});

export function queriesRouter(handlers: QueryHandlers): Router {
  const router = Router();
  for (const route of [serviceIndexRoute, serviceInfoRoute]) {
    serve(router, route, (_req, res) => {
      res.json(handlers.info());
    });
  }
  serve(router, txStatusRoute, async (req, res) => {
    const { id } = parseParams(txStatusRoute, req);
    const doc = await handlers.txStatus(id);
    if (!doc) throw new TxNotFound(id);
    res.set('Cache-Control', `public, max-age=${doc.status === 'FINALIZED' ? 86400 : 15}`);
    res.json(statusBody(doc));
  });
  // Balances are public, like on-chain balances: no token needed.
  serve(router, txOffsetsRoute, async (req, res) => {
    const { id } = parseParams(txOffsetsRoute, req);
    const offsets = await handlers.txOffsets(id);
    if (!offsets) throw new TxNotFound(id);
    res.json(offsets);
  });
  serve(router, balanceRoute, async (req, res) => {
    const { address } = parseParams(balanceRoute, req);
    res.set('Cache-Control', 'no-store');
    res.json(balanceBodyOfDocument(address, await handlers.accountBalance(address)));
  });
  return router;
}
