import { Router, type Request } from 'express';
import { clientKeyOf } from '../domain/clientKey.js';
import { FiatNotSupported, InvalidAddress } from '../domain/errors.js';
import { accountKeyOfClientAddress } from '../domain/account/clientAddress.js';
import type { QueryHandlers } from '../queries/types.js';
import { parseParams } from './openapi/route.js';
import { serve } from './openapi/serve.js';
import { priceRoute } from './openapi/routes/public.js';
import { countriesRoute, currenciesRoute, fiatRateRoute, freeStatusRoute, ratesRoute, tokenPriceRoute } from './openapi/routes/payment.js';

const clientOf = (req: Request) => clientKeyOf(req.ip ?? req.socket.remoteAddress);
const GiB = 2 ** 30;

/**
 * turbo-sdk's payment-service calls (routes/payment.ts), mounted under `/v1` only, after the routers
 * served at both places: `/v1/price/bytes/:bytes` stays the upload cost there.
 */
export function turboPaymentRouter(handlers: Pick<QueryHandlers, 'info' | 'price' | 'wincForToken'>): Router {
  const router = Router();
  serve(router, tokenPriceRoute, (req, res) => {
    const { token, amount } = parseParams(tokenPriceRoute, req);
    res.json({ winc: handlers.wincForToken(token, BigInt(amount)).toString(), fees: [], actualPaymentAmount: BigInt(amount).toString() });
  });
  serve(router, freeStatusRoute, (req, res) => {
    const raw = typeof req.query.address === 'string' ? req.query.address : '';
    if (accountKeyOfClientAddress(raw) === undefined) throw new InvalidAddress(raw);
    res.set('Cache-Control', 'no-store');
    res.json({ bytesRemaining: handlers.info().freeUploadLimitBytes });
  });
  serve(router, ratesRoute, async (req, res) => {
    res.json({ winc: (await handlers.price(GiB, clientOf(req))).toString(), adjustments: [], fees: [], fiat: {} });
  });
  serve(router, fiatRateRoute, (req) => {
    throw new FiatNotSupported(`a rate in ${String(req.params.currency)}`);
  });
  serve(router, currenciesRoute, (_req, res) => {
    res.json({ supportedCurrencies: [], limits: {} });
  });
  serve(router, countriesRoute, (_req, res) => {
    res.json([]);
  });
  return router;
}

/** The Irys/Bundlr price by bytes, at the root only (Irys drops its base URL's path; under `/v1` the path is turbo-sdk's). */
export function irysPriceRouter(handlers: Pick<QueryHandlers, 'price'>): Router {
  const router = Router();
  serve(router, priceRoute, async (req, res) => {
    const { bytes } = parseParams(priceRoute, req);
    res.type('text/plain; charset=utf-8').send((await handlers.price(bytes, clientOf(req))).toString());
  });
  return router;
}
