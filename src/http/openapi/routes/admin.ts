import type { z } from 'zod';
import { ApprovalBody, BlockBody, CreditBody, QuarantineBody, RequeueBody } from '../../../contract/adminSchemas.js';
import { defineRoute } from '../route.js';
import { addressParam, blockTargetParam, dataItemIdParam } from '../params.js';
import {
  AccountHistoryBody,
  BalanceBody,
  BlockAnswerBody,
  BlocklistBody,
  CreditAnswerBody,
  HoldAnswerBody,
  ReleaseAnswerBody,
  RequeueAnswerBody,
} from '../bodies.js';

/** The operator API (CONTRACT.md section 5): mounted only with ADMIN_TOKEN; every route needs the bearer token. */

const json = (schema: z.ZodType) => ({ contentType: 'application/json', schema });
const admin = { tag: 'admin', bearerAuth: true } as const;
const balance = { 200: { description: 'the balance after the change', content: json(BalanceBody) } };

export const creditRoute = defineRoute({
  ...admin,
  operationId: 'creditAccount',
  method: 'post',
  path: '/accounts/:address/credit',
  summary: 'Credit an account',
  description: 'Adds winc to the account. The same `creditId` credits once, so a retry is safe.',
  params: { address: addressParam('the account to credit') },
  requestBody: { ...json(CreditBody), description: 'the credit', required: true },
  responses: { 200: { description: 'the balance after the credit, and its credit id', content: json(CreditAnswerBody) } },
  errors: ['UNAUTHORIZED', 'INVALID_ADDRESS', 'INVALID_REQUEST'],
});

export const approveRoute = defineRoute({
  ...admin,
  operationId: 'approvePayments',
  method: 'post',
  path: '/accounts/:payer/approvals',
  summary: 'Approve paying for another address',
  description: 'The payer pays up to `winc` for uploads of `approvedAddress` that name it in `x-paid-by`.',
  params: { payer: addressParam('the paying account') },
  requestBody: { ...json(ApprovalBody), description: 'the approval', required: true },
  responses: balance,
  errors: ['UNAUTHORIZED', 'INVALID_ADDRESS', 'INVALID_REQUEST'],
});

export const revokeRoute = defineRoute({
  ...admin,
  operationId: 'revokeApproval',
  method: 'delete',
  path: '/accounts/:payer/approvals/:approvedAddress',
  summary: 'Revoke an approval',
  description: 'The payer no longer pays for that address.',
  params: { payer: addressParam('the paying account'), approvedAddress: addressParam('the approved address') },
  responses: balance,
  errors: ['UNAUTHORIZED', 'INVALID_ADDRESS'],
});

export const accountRoute = defineRoute({
  ...admin,
  operationId: 'getAccount',
  method: 'get',
  path: '/accounts/:address',
  summary: 'Balance of an account, from its stream',
  description: "Read from the account's events rather than the read model: what is stored right now.",
  params: { address: addressParam('the account') },
  responses: { 200: { description: 'the balance', content: json(BalanceBody) } },
  errors: ['UNAUTHORIZED', 'INVALID_ADDRESS'],
});

export const accountHistoryRoute = defineRoute({
  ...admin,
  operationId: 'getAccountHistory',
  method: 'get',
  path: '/accounts/:address/history',
  summary: "An account's events",
  description: 'Every event of the account in order, as stored; revisions and positions as decimal strings.',
  params: { address: addressParam('the account') },
  responses: { 200: { description: 'the history', content: json(AccountHistoryBody) } },
  errors: ['UNAUTHORIZED', 'INVALID_ADDRESS'],
});

export const requeueRoute = defineRoute({
  ...admin,
  operationId: 'requeueItem',
  method: 'post',
  path: '/items/:id/requeue',
  summary: 'Put a FAILED item back in the bundle queue',
  description:
    'Records `DataItemRequeued` (who, why, the failure it leaves) on the item: it waits for a bundle again, with its bundle attempts counted from zero, ' +
    'and `GET /tx/:id/status` answers `CONFIRMED`/`new`. Requeuing an item requeued and not failed since does nothing (`requeued: false`). ' +
    'An item that is not FAILED: 409 `Data item not failed`; a damaged one (its stored bytes are not the accepted ones): 409 `Data item damaged: upload it again`. ' +
    'A paid item is charged its price again first (its FAILED charge is refunded): a payer who cannot pay, 402 `Insufficient balance`, and the item stays FAILED. ' +
    'A held (quarantined) item: 451 `Unavailable For Legal Reasons`; release it first.',
  params: { id: dataItemIdParam },
  requestBody: { ...json(RequeueBody), description: 'who and why', required: true },
  responses: { 200: { description: 'requeued, or already requeued before', content: json(RequeueAnswerBody) } },
  errors: ['UNAUTHORIZED', 'INVALID_REQUEST', 'TX_NOT_FOUND', 'ITEM_NOT_FAILED', 'ITEM_DAMAGED', 'INSUFFICIENT_BALANCE', 'QUARANTINED'],
});

export const quarantineRoute = defineRoute({
  ...admin,
  operationId: 'quarantineItem',
  method: 'put',
  path: '/items/:id/quarantine',
  summary: 'Hold an item (quarantine)',
  description:
    'Records `DataItemQuarantined` (who, why) on the item: it is put in no bundle until released (a bundle it is planned in, not yet signed, is dropped and its other items planned again), ' +
    'and `GET /:id`, `GET /tx/:id/data`, `GET /tx/:id`, their ranges and `HEAD` answer 451 `Unavailable For Legal Reasons`, for the items nested in it too; `GET /tx/:id/status` adds `quarantined: true`. ' +
    'Holding a held item does nothing (`held: false`). An item whose bundle is signed or posted is on Arweave (or on its way): 409 `Data item already posted: it is on Arweave`, nothing recorded. ' +
    "An item nested in another: 409 `Data item is nested in another: hold its root item` (its bytes are the root item's: hold the root).",
  params: { id: dataItemIdParam },
  requestBody: { ...json(QuarantineBody), description: 'who and why', required: true },
  responses: { 200: { description: 'held, or already held before', content: json(HoldAnswerBody) } },
  errors: ['UNAUTHORIZED', 'INVALID_REQUEST', 'TX_NOT_FOUND', 'ITEM_POSTED', 'ITEM_NESTED'],
});

export const releaseRoute = defineRoute({
  ...admin,
  operationId: 'releaseItem',
  method: 'delete',
  path: '/items/:id/quarantine',
  summary: 'Release a held item',
  description:
    'Records `DataItemReleased` (who, why): the item waits for a bundle again and is served. Releasing an item that is not held does nothing (`released: false`).',
  params: { id: dataItemIdParam },
  requestBody: { ...json(QuarantineBody), description: 'who and why', required: true },
  responses: { 200: { description: 'released, or not held', content: json(ReleaseAnswerBody) } },
  errors: ['UNAUTHORIZED', 'INVALID_REQUEST', 'TX_NOT_FOUND', 'ITEM_NESTED'],
});

export const blockRoute = defineRoute({
  ...admin,
  operationId: 'blockAddress',
  method: 'put',
  path: '/blocklist/:address',
  summary: 'Block an address',
  description:
    'Uploads signed by the address, or naming it as payer in `x-paid-by`, answer 403 `Forbidden` from now on (every process that takes uploads sees it within seconds). ' +
    'An address names a key under every signature type that uses the key: an ed25519 key blocked by its base58 (types 2, 4), its sha256 (type 5) or its base64url is refused as type 2, 4 and 5 ' +
    'and as a signer of a type-6 multisig; an ethereum address refuses types 3 and 7. An owner public key (as `GET /tx/:id` answers `owner`) blocks the address it stands for. ' +
    'A bundle item holding an item of a blocked owner (at the depths nested items are indexed) is refused too, and such a nested item is not indexed nor served. ' +
    'Blocking a blocked address changes nothing.',
  params: { address: blockTargetParam('the address or owner key to block') },
  requestBody: { ...json(BlockBody), description: 'who blocks it and why', required: true },
  responses: { 200: { description: 'the address is blocked', content: json(BlockAnswerBody) } },
  errors: ['UNAUTHORIZED', 'INVALID_ADDRESS', 'INVALID_REQUEST'],
});

export const unblockRoute = defineRoute({
  ...admin,
  operationId: 'unblockAddress',
  method: 'delete',
  path: '/blocklist/:address',
  summary: 'Unblock an address',
  description: "The address's uploads are taken again. Unblocking an address that is not blocked changes nothing.",
  params: { address: blockTargetParam('the address or owner key to unblock') },
  requestBody: { ...json(BlockBody), description: 'who unblocks it and why', required: true },
  responses: { 200: { description: 'the address is not blocked', content: json(BlockAnswerBody) } },
  errors: ['UNAUTHORIZED', 'INVALID_ADDRESS', 'INVALID_REQUEST'],
});

export const blocklistRoute = defineRoute({
  ...admin,
  operationId: 'getBlocklist',
  method: 'get',
  path: '/blocklist',
  summary: 'The block list',
  description: "Every blocked address, who blocked it, why and since when, read from the block list's stream.",
  responses: { 200: { description: 'the block list', content: json(BlocklistBody) } },
  errors: ['UNAUTHORIZED'],
});
