import { z } from 'zod';
import { defineRoute, type NamedValue } from '../route.js';
import { addressParam, byteCountParam, dataItemIdParam, irysPaidByHeader, paidByHeader, tokenParam } from '../params.js';
import {
  ApprovalsBody,
  BalanceBody,
  ReceiptBody,
  ServiceInfoBody,
  TokenBalanceBody,
  TopUpAnswerBody,
  TopUpRequestBody,
  TxHeaderBody,
  TxOffsetsBody,
  TxStatusBody,
  UploadAnswerBody,
  UploadCostBody,
} from '../bodies.js';

/** Service information, single uploads and the item and balance queries (CONTRACT.md sections 2, 3, 5, 6). */

const json = (schema: z.ZodType) => ({ contentType: 'application/json', schema });

const info = {
  tag: 'info',
  summary: 'Service information',
  description: 'Version, gateway, the addresses of the service (`arweave` signs receipts) and the free upload limit.',
  responses: { 200: { description: 'service information', content: json(ServiceInfoBody) } },
} as const;

export const serviceIndexRoute = defineRoute({ ...info, operationId: 'getServiceIndex', method: 'get', path: '/' });
export const serviceInfoRoute = defineRoute({ ...info, operationId: 'getServiceInfo', method: 'get', path: '/info' });

const upload = {
  method: 'post',
  tag: 'uploads',
  headers: {
    'content-type': { schema: z.string(), description: 'absent, or application/octet-stream (parameters ignored); anything else is `Invalid Content Type`' },
    'content-length': { schema: z.string().regex(/^\d+$/), description: 'optional; over the maximum item size is `Data item too large` before a byte is read' },
    'x-paid-by': paidByHeader,
    'x-irys-paid-by': irysPaidByHeader,
  } satisfies Record<string, NamedValue>,
  requestBody: {
    contentType: 'application/octet-stream',
    description: 'one signed ANS-104 data item (any signature type 1 to 7), streamed and verified as it arrives',
    required: true,
  },
  responses: {
    200: { description: 'accepted: the receipt, once the bytes and the acceptance are durable', content: json(UploadAnswerBody) },
    202: {
      description: 'the item was already stored: its original receipt, with what its credit-sharing tags granted or revoked (as the first answer had it)',
      reason: 'Data Item Exists',
      content: json(UploadAnswerBody),
    },
  },
} as const;

export const uploadRoute = defineRoute({
  ...upload,
  operationId: 'uploadDataItem',
  path: '/tx',
  summary: 'Upload a data item (paid in arweave)',
  description:
    'Uploads one signed data item. Items above the free limit are charged to the payer (402 when it cannot pay). ' +
    'An item tagged `x-approve-payment: <address>` with `x-amount: <winc>` (and optionally `x-expires-seconds`; Irys: `x-irys-approve-payment`, `x-expire-seconds`) ' +
    "grants that address an approval on its signer's credits, answered as `createdApproval`; one tagged `x-delete-payment-approval` (Irys: `x-irys-delete-payment-approval`) " +
    'revokes it, answered as `revokedApprovals`. A malformed amount or expiry, a self-approval or a revocation of nothing is `Invalid request`, an approved address of no account `Invalid address`: nothing is stored or charged.',
  errors: ['INVALID_CONTENT_TYPE', 'INVALID_DATA_ITEM', 'DATA_ITEM_TOO_LARGE', 'INSUFFICIENT_BALANCE', 'FORBIDDEN', 'INVALID_REQUEST', 'INVALID_ADDRESS'],
});

export const uploadWithTokenRoute = defineRoute({
  ...upload,
  operationId: 'uploadDataItemWithToken',
  path: '/tx/:token',
  summary: 'Upload a data item, naming the token',
  description: 'As `POST /tx`, for the token the client names (turbo-sdk and Irys name theirs).',
  params: { token: tokenParam },
  errors: [
    'INVALID_TOKEN',
    'INVALID_CONTENT_TYPE',
    'INVALID_DATA_ITEM',
    'DATA_ITEM_TOO_LARGE',
    'INSUFFICIENT_BALANCE',
    'FORBIDDEN',
    'INVALID_REQUEST',
    'INVALID_ADDRESS',
  ],
});

export const txStatusRoute = defineRoute({
  operationId: 'getTxStatus',
  method: 'get',
  path: '/tx/:id/status',
  tag: 'items',
  summary: 'Status of a data item',
  description: 'Where the item is on its way to permanence, its price and its sizes (CONTRACT.md section 6).',
  params: { id: dataItemIdParam },
  responses: {
    200: {
      description: 'the item is known',
      content: json(TxStatusBody),
      headers: { 'cache-control': { schema: z.string(), description: '`public, max-age=15`, or `public, max-age=86400` once FINALIZED' } },
    },
  },
  errors: ['TX_NOT_FOUND'],
});

export const txReceiptRoute = defineRoute({
  operationId: 'getTxReceipt',
  method: 'get',
  path: '/tx/:id/receipt',
  tag: 'items',
  summary: 'Receipt of a data item',
  description:
    "The signed receipt as the upload answered it, byte for byte (its fields in wire order). An item nested in an uploaded bundle has none: `TX doesn't exist`.",
  params: { id: dataItemIdParam },
  responses: { 200: { description: 'the receipt', content: json(ReceiptBody) } },
  errors: ['TX_NOT_FOUND'],
});

export const txOffsetsRoute = defineRoute({
  operationId: 'getTxOffsets',
  method: 'get',
  path: '/tx/:id/offsets',
  tag: 'items',
  summary: 'Offsets of a data item in its bundle',
  description:
    "Where the item's bytes are in its root bundle transaction (and in its parent item, for nested items), once its bundle is planned; for items accepted within the retention.",
  params: { id: dataItemIdParam },
  responses: { 200: { description: 'the offsets', content: json(TxOffsetsBody) } },
  errors: ['TX_NOT_FOUND'],
});

export const balanceRoute = defineRoute({
  operationId: 'getAccountBalance',
  method: 'get',
  path: '/account/balance/:address',
  tag: 'accounts',
  summary: 'Balance of an account',
  description:
    'Public, like on-chain balances. An account never credited answers zeros. The segment is an address (the `Balance` body), ' +
    'or, with `?address=`, a token name turbo-sdk or Irys sends (`arweave`, `ario`, `base-ario`, `ethereum`, `base-eth`, `matic`, `pol`, `usdc`, `base-usdc`, `polygon-usdc`, `kyve`, `solana`, ' +
    '`bnb`, `fantom`, `avalanche`, `boba`, `boba-eth`, `usdc-eth`, `usdc-polygon`, `arbitrum`, `chainlink`, `near`, `algorand`, `aptos`, `bera`, `scroll-eth`, `linea-eth`, `iotex`; another is `Invalid token`) ' +
    '(the `TokenBalance` body the Irys/Bundlr and turbo-sdk clients parse). The address is brought to the account key: an arweave address, a 0x address (any case: keyed by its checksum form), ' +
    'base58 (solana, ed25519), an Algorand address (its checksum must hold) or a NEAR implicit account (64 hex digits) name the ed25519 key. ' +
    'A kyve bech32 address, an Aptos address or a named NEAR account is a hash of the key, not the key: `Invalid address`, as is any other shape.',
  params: { address: addressParam("the payer's native address, or a token name of `/info` (then `?address=` names the payer)") },
  query: { address: { schema: z.string(), description: "with a token name in the path: the payer's native address; another shape is `Invalid address`" } },
  responses: {
    200: {
      description: 'the balance',
      content: json(z.union([BalanceBody, TokenBalanceBody])),
      headers: { 'cache-control': { schema: z.literal('no-store'), description: 'never cached' } },
    },
  },
  errors: ['INVALID_ADDRESS'],
});

export const topUpRoute = defineRoute({
  operationId: 'topUp',
  method: 'post',
  path: '/account/balance/:token',
  tag: 'accounts',
  summary: 'Claim a top-up with your own tokens',
  description:
    "Irys/Bundlr `fund()` and turbo-sdk `topUpWithTokens`: after sending tokens to the service's address of `/info` for that token, the sender claims them with the transaction id. " +
    'The service reads the transaction from the chain: a transfer to its address is credited to the sender (or to the `Turbo-Credit-Destination-Address` it names) at the configured rate, ' +
    'once it has the configured confirmations (`confirmed: false` until then; a periodic check credits it). Each transaction is claimed once, whatever the spelling of its id ' +
    '(an AR id is brought to the spelling its 32 bytes re-encode to, an ETH hash to lower case). ' +
    'Tokens: `arweave`, `ethereum`, and the EVM chains the operator configured (`base-eth` for Base; `matic` or `pol` for Polygon, one chain under both names), ' +
    "each read only from its own RPC endpoint, whose chain id is checked: a transaction of one chain claimed as another's is `Invalid transaction`. " +
    'A token without top-ups configured is `Invalid token`; a transaction unknown to the chain, not to this service, failed or already claimed is `Invalid transaction`; ' +
    'more claims from one client in a minute than configured are `Too Many Requests`, with `Retry-After`.',
  params: { token: tokenParam },
  requestBody: { ...json(TopUpRequestBody), description: 'the transaction id', required: true },
  responses: { 200: { description: 'claimed: credited now, or once confirmed', content: json(TopUpAnswerBody) } },
  errors: ['INVALID_TOKEN', 'INVALID_REQUEST', 'INVALID_TRANSACTION', 'TOO_MANY_REQUESTS'],
});

export const approvalsRoute = defineRoute({
  operationId: 'getApprovals',
  method: 'get',
  path: '/account/approvals/get',
  tag: 'accounts',
  summary: 'Approvals of an account (turbo-sdk)',
  description: "turbo-sdk's `getCreditShareApprovals`: the approvals `userAddress` gave, and those in force that it received.",
  query: { userAddress: { schema: z.string(), required: true, description: "the account's native address; another shape is `Invalid address`" } },
  responses: {
    200: {
      description: 'the approvals',
      content: json(ApprovalsBody),
      headers: { 'cache-control': { schema: z.literal('no-store'), description: 'never cached' } },
    },
  },
  errors: ['INVALID_ADDRESS'],
});

export const irysApprovalRoute = defineRoute({
  operationId: 'getIrysApproval',
  method: 'get',
  path: '/account/approval',
  tag: 'accounts',
  summary: 'One approval (Irys)',
  description:
    "Irys's `Approval.getApproval` / `getApprovedBalanceFrom` (Irys-xyz/arweave-js-sdk src/common/approval.ts): what `approvedAddress` can still spend through " +
    "`payingAddress`'s approval, open reservations counted, as `{ amount, expiresBy? }` (`expiresBy`: ms since the epoch, a decimal string); " +
    '`{ amount: "0" }` when there is none in force (Irys reads a 404 the same way). Addresses in the forms of `token` (as the balance by token); another is `Invalid address`, an unknown token `Invalid token`.',
  query: {
    payingAddress: { schema: z.string(), required: true, description: "the payer's address" },
    approvedAddress: { schema: z.string(), required: true, description: "the approved owner's address" },
    token: { schema: z.string(), description: 'the token whose address forms apply (default arweave)' },
  },
  responses: {
    200: {
      description: 'the approval',
      content: json(z.object({ amount: z.string().regex(/^\d+$/), expiresBy: z.string().regex(/^\d+$/).optional() }).meta({ id: 'IrysApproval' })),
      headers: { 'cache-control': { schema: z.literal('no-store'), description: 'never cached' } },
    },
  },
  errors: ['INVALID_ADDRESS', 'INVALID_TOKEN'],
});

/** Prices (CONTRACT.md section 5): the price an upload of that size is charged now, free limit included. */

export const uploadCostRoute = defineRoute({
  operationId: 'getUploadCost',
  method: 'get',
  path: '/price/bytes/:bytes',
  tag: 'prices',
  summary: 'Price of an upload (turbo-sdk)',
  description:
    "turbo-sdk's `getUploadCosts`: the winc an upload of a signed item of that size is charged, in its `{ winc, adjustments, fees }`. " +
    'A size past MAX_DATA_ITEM_SIZE is `Invalid request`; past PRICE_LOOKUPS_BURST sizes not cached, a client is answered 429 with Retry-After.',
  params: { bytes: byteCountParam },
  responses: { 200: { description: 'the price', content: json(UploadCostBody) } },
  errors: ['INVALID_REQUEST', 'TOO_MANY_REQUESTS'],
});

export const priceRoute = defineRoute({
  operationId: 'getPrice',
  method: 'get',
  path: '/price/:token/:bytes',
  tag: 'prices',
  summary: 'Price of an upload (Irys/Bundlr)',
  description:
    'The winc an upload of a signed item of that size is charged, as a plain decimal number (the Irys/Bundlr clients parse the body as a number). ' +
    'The price does not depend on the token; `bytes` is not a token here (it is `GET /price/bytes/:bytes`). Query parameters (`address`, `tags`) are ignored.',
  params: { token: tokenParam, bytes: byteCountParam },
  responses: { 200: { description: 'the price in winc', content: { contentType: 'text/plain', schema: z.string().regex(/^\d+$/) } } },
  errors: ['INVALID_TOKEN', 'INVALID_REQUEST', 'TOO_MANY_REQUESTS'],
});

// Reading an item back (CONTRACT.md section 7): its payload from its receipt on, for nested items
// from their root item's bytes. GET also answers HEAD (headers only), as Express does.
const immutable = { schema: z.literal('public, max-age=31536000, immutable'), description: 'the bytes of an id never change' };
const itemData = {
  method: 'get',
  tag: 'items',
  params: { id: dataItemIdParam },
  headers: {
    range: {
      schema: z.string(),
      description: 'one range `bytes=a-b`, `bytes=a-` or `bytes=-n`: 206; several ranges are answered with the whole payload (200)',
    },
    'if-none-match': { schema: z.string(), description: 'the ETag (or `*`): 304' },
  } satisfies Record<string, NamedValue>,
  responses: {
    200: {
      description: "the item's payload (the bytes after its ANS-104 header), streamed",
      content: { contentType: '*/*' },
      headers: {
        'content-type': { schema: z.string(), description: 'its Content-Type tag as recorded, else application/octet-stream' },
        'content-length': { schema: z.string(), description: 'payload bytes' },
        etag: { schema: z.string(), description: 'the item id, quoted' },
        'cache-control': immutable,
        'accept-ranges': { schema: z.literal('bytes'), description: 'ranges are served' },
      },
    },
    206: {
      description: 'the one range asked for',
      content: { contentType: '*/*' },
      headers: { 'content-range': { schema: z.string(), description: '`bytes a-b/size`' } },
    },
    304: { description: 'If-None-Match names the ETag: no body' },
    416: {
      description: 'the range starts past the payload (or is empty): no body',
      reason: 'Range Not Satisfiable',
      headers: { 'content-range': { schema: z.string(), description: '`bytes */size`' } },
    },
  },
  // a held item (src/app/quarantine.ts), or one nested in a held root
  // an item whose bytes were retired after permanence (RETAIN_PERMANENT_BYTES_MS) is read from the
  // gateway: 502/504 when it cannot serve them, 503 when RETIRED_READS_MAX such reads are under way; bytes
  // that do not match the acceptance's sha256 cut the body before its last byte
  errors: ['TX_NOT_FOUND', 'QUARANTINED', 'BAD_GATEWAY', 'GATEWAY_TIMEOUT', 'SERVICE_UNAVAILABLE'],
} as const;

export const txDataRoute = defineRoute({
  ...itemData,
  operationId: 'getTxData',
  path: '/tx/:id/data',
  summary: 'Payload of a data item',
  description:
    "The item's payload, from its receipt on; a nested item's from its root item's bytes. Once retired after permanence (RETAIN_PERMANENT_BYTES_MS), the bytes are streamed from the gateway (the item's range in its bundle transaction) and checked against the acceptance's sha256 before the last byte is sent. Another id shape is `TX doesn't exist`.",
});

export const rootDataRoute = defineRoute({
  ...itemData,
  operationId: 'getData',
  path: '/:id',
  summary: 'Payload of a data item, at its id',
  description:
    'As `GET /tx/{id}/data`, at the path a gateway serves it: a browser loads an uploaded page or image by id. Only a 43-character id is this route: other paths are other routes (or `Not Found`).',
});

export const txHeaderRoute = defineRoute({
  operationId: 'getTxHeader',
  method: 'get',
  path: '/tx/:id',
  tag: 'items',
  summary: 'Header of a data item',
  description:
    "The item's signed header fields and sizes, read from its first bytes, from its receipt on (from the gateway, checked against its digest, once its bytes were retired after permanence).",
  params: { id: dataItemIdParam },
  responses: {
    200: { description: 'the header', content: json(TxHeaderBody), headers: { 'cache-control': immutable } },
  },
  errors: ['TX_NOT_FOUND', 'QUARANTINED', 'BAD_GATEWAY', 'GATEWAY_TIMEOUT', 'SERVICE_UNAVAILABLE'],
});
