import { z } from 'zod';
import { defineRoute, type NamedValue, type PathParam } from '../route.js';
import { InvalidRequest } from '../../../domain/errors.js';
import { ReceiptBody } from '../../../http/openapi/bodies.js';

/**
 * x402 pay-per-upload, at the paths the reference serves (ardriveapp/turbo-upload-service src/router.ts)
 * and the ones turbo-sdk 1.43.0 posts to (lib/esm/common/http.js `x402UploadEndpoints`).
 */

const json = (schema: z.ZodType) => ({ contentType: 'application/json', schema });

const Network = z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/);
export const networkParam: PathParam<typeof Network> = {
  schema: Network.meta({ id: 'X402Network', description: "x402's name of a network: `base`, `base-sepolia`, ..." }),
  description: 'only this network is offered in the requirements (one not configured: 402 with the configured ones, error `invalid_network`)',
  invalid: (raw) => new InvalidRequest(`network ${raw}`),
};

const PaymentRequirements = z
  .object({
    scheme: z.literal('exact'),
    network: z.string(),
    maxAmountRequired: z.string().meta({ description: "the item's price in USDC atomic units (10^-6 USDC), rounded up" }),
    resource: z.string(),
    description: z.string(),
    mimeType: z.string(),
    payTo: z.string(),
    maxTimeoutSeconds: z.number().int(),
    asset: z.string().meta({ description: 'the USDC contract' }),
    extra: z.object({ name: z.string(), version: z.string() }).meta({ description: "the USDC contract's EIP-712 domain" }),
  })
  .meta({ id: 'X402PaymentRequirements' });

export const PaymentRequiredBody = z
  .object({
    x402Version: z.literal(1),
    accepts: z.array(PaymentRequirements),
    error: z.string(),
    payer: z.string().optional(),
  })
  .meta({ id: 'X402PaymentRequired', description: "x402's 402 answer: what to pay, and why the payment sent (if any) was refused" });

export const X402ReceiptBody = ReceiptBody.extend({
  x402PaymentTxId: z.string().optional().meta({ description: 'the settlement transaction' }),
  mUSDCPaid: z.string().optional().meta({ description: 'the authorization value, in USDC atomic units' }),
}).meta({ id: 'X402Receipt', description: 'the receipt, with the payment that paid for it (the reference adds these fields)' });

const headers = {
  'content-length': {
    schema: z.string().regex(/^\d+$/),
    description: 'required (411 without): the item is priced by it, and must be exactly that long',
    required: true,
  },
  'x-payment': { schema: z.string(), description: "base64 of x402's payment payload (an `exact` EIP-3009 USDC authorization)" },
} satisfies Record<string, NamedValue>;

const signed = {
  method: 'post',
  tag: 'x402',
  summary: 'Upload a signed data item, paid with x402 (USDC)',
  description:
    'Without `X-PAYMENT`, 402 with the requirements: the exact price of `content-length` bytes in USDC. With it, the payment is verified, ' +
    'the item received and verified, the payment settled on chain and credited to the payer, and the item accepted charging it. ' +
    '`X-PAYMENT-RESPONSE` carries the settlement. A payment that does not settle: 402 `Payment failed`, nothing stored or charged.',
  headers,
  requestBody: { contentType: 'application/octet-stream', description: 'one signed ANS-104 data item', required: true },
  responses: {
    200: {
      description: 'accepted and paid',
      content: json(X402ReceiptBody),
      headers: { 'x-payment-response': { schema: z.string(), description: "base64 of x402's settlement response" } },
    },
    202: { description: 'the item was already stored: its original receipt, nothing paid', reason: 'Data Item Exists', content: json(ReceiptBody) },
    402: {
      description: 'payment required, or the payment sent was refused (JSON), or it did not settle (`Payment failed`, plain text)',
      content: json(PaymentRequiredBody),
    },
    411: { description: '`Missing Content Length. Content Length is required for x402 upload.` (plain text)' },
  },
  errors: ['INVALID_CONTENT_TYPE', 'INVALID_DATA_ITEM', 'DATA_ITEM_TOO_LARGE', 'INSUFFICIENT_BALANCE', 'FORBIDDEN'],
} as const;

export const x402SignedRoute = defineRoute({ ...signed, operationId: 'x402UploadSigned', path: '/x402/data-item/signed' });
export const x402SignedNetworkRoute = defineRoute({
  ...signed,
  operationId: 'x402UploadSignedOnNetwork',
  path: '/x402/data-item/signed/:network',
  params: { network: networkParam },
});
export const x402SignedSdkRoute = defineRoute({
  ...signed,
  operationId: 'x402UploadSignedSdkPath',
  path: '/x402/upload/signed',
  summary: 'As /x402/data-item/signed (the path turbo-sdk 1.43.0 posts to)',
});

const unsigned = {
  ...signed,
  summary: 'Upload raw data as a data item signed by the service, paid with x402 (USDC)',
  description:
    "As the signed route, for raw data: the service makes it a data item signed with its Ethereum key, tagged `Content-Type` (the request's), " +
    '`Data-Item-Authority`, the tags of `x-data-item-tags` and `X402-Payer-Address`, and prices that item. Served when `X402_DATA_ITEM_KEY_FILE` is set.',
  headers: {
    ...headers,
    'content-type': { schema: z.string(), description: "the data's content type, its `Content-Type` tag (default application/octet-stream)" },
    'x-data-item-tags': { schema: z.string(), description: 'a JSON array of `{ name, value }` tags for the item (ignored when it does not parse)' },
  },
  requestBody: { contentType: 'application/octet-stream', description: 'the raw data', required: true },
  responses: {
    ...signed.responses,
    411: { description: '`Missing Content Length. Content Length is required for raw data post.` (plain text)' },
  },
  errors: ['INVALID_DATA_ITEM', 'DATA_ITEM_TOO_LARGE', 'INSUFFICIENT_BALANCE', 'FORBIDDEN'],
} as const;

export const x402UnsignedRoute = defineRoute({ ...unsigned, operationId: 'x402UploadUnsigned', path: '/x402/data-item/unsigned' });
export const x402UnsignedNetworkRoute = defineRoute({
  ...unsigned,
  operationId: 'x402UploadUnsignedOnNetwork',
  path: '/x402/data-item/unsigned/:network',
  params: { network: networkParam },
});
export const x402UnsignedSdkRoute = defineRoute({
  ...unsigned,
  operationId: 'x402UploadUnsignedSdkPath',
  path: '/x402/upload/unsigned',
  summary: 'As /x402/data-item/unsigned (the path turbo-sdk 1.43.0 posts to)',
});

/** every x402 upload route: held to the single uploads' limits (limits.ts) */
export const X402_UPLOAD_ROUTES = [x402SignedRoute, x402SignedNetworkRoute, x402SignedSdkRoute];
export const X402_UNSIGNED_ROUTES = [x402UnsignedRoute, x402UnsignedNetworkRoute, x402UnsignedSdkRoute];
