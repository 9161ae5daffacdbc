import { z } from 'zod';
import { defineRoute } from '../route.js';
import { tokenParam } from '../params.js';
import { InvalidRequest } from '../../../domain/errors.js';

/**
 * turbo-sdk's payment-service calls that only it makes, under `/v1` of its payment URL (its
 * TurboHTTPService is built with `${url}/v1`: @ardrive/turbo-sdk 1.43 lib/esm/common/payment.js), in
 * the shapes of ardriveapp/turbo-sdk packages/turbo-sdk/src/types.ts at 1be4559 and the reference's
 * routes (ardriveapp/turbo-payment-service src/routes/ at e8c570e). `GET /v1/price/:token/:amount`
 * is the price of a token amount here, as in the reference; the Irys clients, which call root paths
 * only, keep `GET /price/:token/:bytes` at the root.
 */

const json = (schema: z.ZodType) => ({ contentType: 'application/json', schema });
const Winc = z.string().regex(/^\d+$/);

/** a token amount in its smallest unit (winston, wei): decimal digits, as many as any amount needs */
export const TokenAmount = z.string().regex(/^\d{1,40}$/);

export const tokenPriceRoute = defineRoute({
  operationId: 'getWincForToken',
  method: 'get',
  path: '/price/:token/:amount',
  tag: 'prices',
  summary: 'Credits for a token amount (turbo-sdk)',
  description:
    "turbo-sdk's `getWincForToken` and on-demand funding: the winc a top-up of `amount` (in the token's smallest unit: winston, wei) is credited, " +
    'at the configured rate (`TOPUP_WINC_PER_AR`, `TOPUP_WINC_PER_ETH`), rounded down, exactly as a top-up credits it. Only under `/v1`: at the root this path is the Irys price by bytes. ' +
    '`actualPaymentAmount` is the amount, as a decimal string (exact past 2^53; turbo-sdk reads it with `toString()`). ' +
    'A token the service takes no top-ups in is `Invalid token`; a fiat currency (`usd`, `eur`, ...) `Fiat payments not supported`; an amount that is not a whole number of at most 40 digits `Invalid request`.',
  params: {
    token: tokenParam,
    amount: {
      schema: TokenAmount,
      description: "the amount in the token's smallest unit",
      invalid: (raw: string) => new InvalidRequest(`token amount ${raw}`),
    },
  },
  responses: {
    200: {
      description: 'the credits',
      content: json(
        z
          .object({ winc: Winc, fees: z.array(z.never()), actualPaymentAmount: Winc })
          .meta({ id: 'WincForToken', description: "turbo-sdk's `RawWincForTokenResponse`, with the amount as an exact decimal string" }),
      ),
    },
  },
  errors: ['INVALID_TOKEN', 'INVALID_REQUEST', 'FIAT_NOT_SUPPORTED'],
});

export const freeStatusRoute = defineRoute({
  operationId: 'getFreeStatus',
  method: 'get',
  path: '/account/free',
  tag: 'accounts',
  summary: 'Free bytes left (turbo-sdk)',
  description:
    "turbo-sdk's `getFreeStatus` and `turbo free-status`: every item of at most `FREE_UPLOAD_LIMIT_BYTES` is free, for every address and without a quota, " +
    'so what an address has left is that many bytes for each item (0 when the free tier is off). The address in any form the balance route takes; another is `Invalid address`.',
  query: { address: { schema: z.string(), required: true, description: "the wallet's native address" } },
  responses: {
    200: {
      description: 'the free allowance',
      content: json(z.object({ bytesRemaining: z.int().nonnegative() }).meta({ id: 'FreeStatus', description: "turbo-sdk's `TurboFreeStatusResponse`" })),
    },
  },
  errors: ['INVALID_ADDRESS'],
});

export const ratesRoute = defineRoute({
  operationId: 'getRates',
  method: 'get',
  path: '/rates',
  tag: 'prices',
  summary: 'Price of a GiB (turbo-sdk)',
  description: "turbo-sdk's `getFiatRates`: the winc a GiB is charged; `fiat` is empty: this service takes tokens only.",
  responses: {
    200: {
      description: 'the rates',
      content: json(
        z
          .object({ winc: Winc, adjustments: z.array(z.never()), fees: z.array(z.never()), fiat: z.object({}).strict() })
          .meta({ id: 'Rates', description: "turbo-sdk's `TurboRatesResponse`" }),
      ),
    },
  },
  errors: ['TOO_MANY_REQUESTS'],
});

export const fiatRateRoute = defineRoute({
  operationId: 'getFiatToAr',
  method: 'get',
  path: '/rates/:currency',
  tag: 'prices',
  summary: 'Fiat price of an AR (turbo-sdk)',
  description: "turbo-sdk's `getFiatToAR`: this service has no fiat prices, `Fiat payments not supported` for every currency.",
  params: { currency: { schema: z.string(), description: 'a currency code', invalid: (raw: string) => new InvalidRequest(raw) } },
  responses: {},
  errors: ['FIAT_NOT_SUPPORTED'],
});

export const currenciesRoute = defineRoute({
  operationId: 'getCurrencies',
  method: 'get',
  path: '/currencies',
  tag: 'prices',
  summary: 'Fiat currencies taken (turbo-sdk)',
  description: "turbo-sdk's `getSupportedCurrencies`: none, this service takes tokens only.",
  responses: {
    200: {
      description: 'no currencies',
      content: json(
        z
          .object({ supportedCurrencies: z.array(z.never()), limits: z.object({}).strict() })
          .meta({ id: 'Currencies', description: "turbo-sdk's `TurboCurrenciesResponse`" }),
      ),
    },
  },
});

export const countriesRoute = defineRoute({
  operationId: 'getCountries',
  method: 'get',
  path: '/countries',
  tag: 'prices',
  summary: 'Countries card payments are taken from (turbo-sdk)',
  description: "turbo-sdk's `getSupportedCountries`: none, this service takes no card payments.",
  responses: { 200: { description: 'no countries', content: json(z.array(z.never()).meta({ id: 'Countries' })) } },
});
