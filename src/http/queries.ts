import { Router } from 'express';
import { TxNotFound } from '../domain/errors.js';
import type { TxStatusDocument } from '../../projections/txStatus.js';
import type { QueryHandlers } from '../queries/types.js';
import { balanceBodyOfDocument } from './balanceBody.js';
import { parseParams } from './openapi/route.js';
import { inFrontOf, serve } from './openapi/serve.js';
import { onlyIds, sendPayload } from './itemData.js';
import { headerBody } from './txHeaderBody.js';
import { balanceRoute, serviceIndexRoute, serviceInfoRoute, txOffsetsRoute, txStatusRoute } from './openapi/routes/public.js';
import { rootDataRoute, txDataRoute, txHeaderRoute } from './openapi/routes/public.js';

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
  serve(router, txDataRoute, async (req, res) => {
    const { id } = parseParams(txDataRoute, req);
    await sendPayload(handlers.itemData, id, req, res);
  });
  serve(router, txHeaderRoute, async (req, res) => {
    const { id } = parseParams(txHeaderRoute, req);
    const place = await handlers.itemData.itemPlace(id);
    const header = place ? await handlers.itemData.header(place) : undefined;
    // the bytes must be the item's: a header of another id is not an answer
    if (!place || !header || header.id !== id) throw new TxNotFound(id);
    res.set('Cache-Control', 'public, max-age=31536000, immutable');
    res.json(headerBody(header, place));
  });
  // last of this router, which is mounted before the dashboard and the documents: literal routes win
  inFrontOf(router, [rootDataRoute], onlyIds);
  serve(router, rootDataRoute, async (req, res) => {
    const { id } = parseParams(rootDataRoute, req);
    await sendPayload(handlers.itemData, id, req, res);
  });
  return router;
}
