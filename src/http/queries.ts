import { Router, type Request } from 'express';
import { clientKeyOf } from '../domain/clientKey.js';
import { InvalidAddress, InvalidToken, TxNotFound } from '../domain/errors.js';
import { Receipt } from '../domain/receipt.js';
import { parseAccountAddress } from '../domain/account/ids.js';
import { accountKeyOfClientAddress, CLIENT_TOKENS } from '../domain/account/clientAddress.js';
import { DEFAULT_TOKEN } from '../domain/ids.js';
import type { TxStatusDocument } from '../../projections/txStatus.js';
import type { QueryHandlers } from '../queries/types.js';
import { balanceBodyOfDocument, tokenBalanceBody } from '../contract/balanceBody.js';
import { parseParams } from './openapi/route.js';
import { inFrontOf, serve } from './openapi/serve.js';
import { onlyIds, sendPayload } from './itemData.js';
import { headerBody } from './txHeaderBody.js';
import { serveTxProof } from './txProof.js';
import { serveStatement } from './statement.js';
import type { PaceWatch } from './bodyRate.js';
import { graphqlRoutes } from './graphql.js';
import {
  approvalsRoute,
  balanceRoute,
  irysApprovalRoute,
  rootDataRoute,
  serviceIndexRoute,
  serviceInfoRoute,
  txDataRoute,
  txHeaderRoute,
  txOffsetsRoute,
  txReceiptRoute,
  txStatusRoute,
  uploadCostRoute,
} from './openapi/routes/public.js';

/** the status answer's body (also served ahead of the router: fastStatus.ts) */
export const statusBody = (doc: TxStatusDocument) => ({
  status: doc.status,
  info: doc.info,
  winc: doc.winc,
  ...(doc.bundleId !== undefined ? { bundleId: doc.bundleId } : {}),
  ...(doc.startOffsetInRootBundle !== undefined ? { startOffsetInRootBundle: doc.startOffsetInRootBundle } : {}),
  rawContentLength: doc.rawContentLength,
  payloadContentType: doc.payloadContentType,
  payloadDataStart: doc.payloadDataStart,
  payloadContentLength: doc.payloadContentLength,
  // the status strings are the reference's: a hold is said beside them, only while it stands
  ...(doc.quarantined ? { quarantined: true } : {}),
});

/** the asking client, as the per-client limits key it (src/http/limits.ts) */
const clientOf = (req: Request) => clientKeyOf(req.ip ?? req.socket.remoteAddress);

/** a permanent item's status changes no more */
export const statusCacheControl = (doc: TxStatusDocument) => `public, max-age=${doc.status === 'FINALIZED' ? 86400 : 15}`;

/** `readPace`: times clients reading a payload back (sendBlob.ts); `log`: failures the GraphQL route answers as errors */
export function queriesRouter(handlers: QueryHandlers, readPace?: PaceWatch, log?: (message: string, error: unknown) => void): Router {
  const router = Router();
  if (handlers.graphql) graphqlRoutes(router, handlers.graphql, log);
  for (const route of [serviceIndexRoute, serviceInfoRoute]) {
    serve(router, route, (_req, res) => {
      res.json(handlers.info());
    });
  }
  serve(router, txStatusRoute, async (req, res) => {
    const { id } = parseParams(txStatusRoute, req);
    const doc = await handlers.txStatus(id);
    if (!doc) throw new TxNotFound(id);
    res.set('Cache-Control', statusCacheControl(doc));
    res.json(statusBody(doc));
  });
  serve(router, txReceiptRoute, async (req, res) => {
    const { id } = parseParams(txReceiptRoute, req);
    const receipt = await handlers.receipt(id);
    if (!receipt) throw new TxNotFound(id);
    // the fields in wire order, as the upload answered them, whatever order the read store kept
    res.set('Cache-Control', 'public, max-age=31536000, immutable');
    res.json(Receipt.parse(receipt));
  });
  // Balances are public, like on-chain balances: no token needed.
  serve(router, txOffsetsRoute, async (req, res) => {
    const { id } = parseParams(txOffsetsRoute, req);
    const offsets = await handlers.txOffsets(id);
    if (!offsets) throw new TxNotFound(id);
    res.json(offsets);
  });
  serveTxProof(router, handlers.txProof, readPace);
  /** the body of the clients' balance by token, for `?address=` (or turbo's `?userAddress=`), in any of the clients' address forms */
  async function tokenBalanceOf(raw: unknown, token?: string) {
    const text = typeof raw === 'string' ? raw : '';
    const address = accountKeyOfClientAddress(text, token);
    if (address === undefined) throw new InvalidAddress(text);
    const [account, received] = await Promise.all([handlers.accountBalance(address), handlers.receivedApprovals(address)]);
    return tokenBalanceBody(address, account, received);
  }
  serve(router, balanceRoute, async (req, res) => {
    res.set('Cache-Control', 'no-store');
    // with ?address= (the clients' form) the segment is a token name they send; else it is an address
    const segment = String(req.params.address);
    if (req.query.address !== undefined || Object.hasOwn(handlers.info().addresses, segment)) {
      if (!CLIENT_TOKENS.has(segment) && !Object.hasOwn(handlers.info().addresses, segment)) throw new InvalidToken(segment);
      res.json(await tokenBalanceOf(req.query.address, segment));
      return;
    }
    const { address } = parseParams(balanceRoute, req);
    res.json(balanceBodyOfDocument(address, await handlers.accountBalance(address)));
  });
  serveStatement(router, handlers.accountStatement);
  serve(router, approvalsRoute, async (req, res) => {
    const { givenApprovals, receivedApprovals } = await tokenBalanceOf(req.query.userAddress);
    res.set('Cache-Control', 'no-store');
    res.json({ givenApprovals, receivedApprovals });
  });
  serve(router, irysApprovalRoute, async (req, res) => {
    const token = typeof req.query.token === 'string' ? req.query.token : DEFAULT_TOKEN;
    if (!CLIENT_TOKENS.has(token)) throw new InvalidToken(token);
    const [payer, approved] = [req.query.payingAddress, req.query.approvedAddress].map((raw) => {
      const text = typeof raw === 'string' ? raw : '';
      const address = accountKeyOfClientAddress(text, token);
      if (address === undefined) throw new InvalidAddress(text);
      return address;
    }) as [string, string];
    const received = (await handlers.receivedApprovals(approved)).find((r) => r.payingAddress === payer);
    res.set('Cache-Control', 'no-store');
    res.json(
      received
        ? { amount: received.spendable.toString(), ...(received.expiresAt !== undefined ? { expiresBy: String(received.expiresAt) } : {}) }
        : { amount: '0' },
    );
  });
  // before /price/:token/:bytes (payment.ts, mounted after this router): `bytes` is turbo-sdk's word here, not a token
  serve(router, uploadCostRoute, async (req, res) => {
    const { bytes } = parseParams(uploadCostRoute, req);
    res.json({ winc: (await handlers.price(bytes, clientOf(req))).toString(), adjustments: [], fees: [] });
  });
  serve(router, txDataRoute, async (req, res) => {
    const { id } = parseParams(txDataRoute, req);
    await sendPayload(handlers.itemData, id, req, res, readPace);
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
    await sendPayload(handlers.itemData, id, req, res, readPace);
  });
  return router;
}
