import { z } from 'zod';
import { Receipt } from '../../domain/receipt.js';
import { CHUNK_MAX, CHUNK_MIN } from '../../domain/upload/ids.js';
import type { TxOffsets } from '../../queries/types.js';
import type { BalanceBody as BalanceBodyType } from '../../contract/balanceBody.js';

/**
 * The JSON bodies the service answers with, as the OpenAPI document's named schemas. The handlers
 * build these bodies; the tests parse real answers with these schemas, so they cannot drift apart.
 * Output objects are closed (`additionalProperties: false`): a new field is a documented change.
 */

const Winc = z.string().regex(/^\d+$/).meta({ description: 'winc (winston credits), a decimal string' });
const Count = z.int().nonnegative();

export const ReceiptBody = Receipt.meta({
  id: 'Receipt',
  description:
    'the signed receipt: `signature` is RSA-PSS (SHA-256, salt 0) by the service wallet (`public`) over deepHash(["Bundlr", version, id, deadlineHeight, timestamp])',
});

/** turbo-upload-service's `DelegatedPaymentApproval` (src/arch/payment.ts at c660dd8), as turbo-sdk's `shareCredits` returns it */
const DelegatedApprovalBody = z
  .object({
    approvalDataItemId: z.string().optional().meta({ description: 'the tagged item that granted it (absent for an operator approval)' }),
    approvedAddress: z.string(),
    payingAddress: z.string().meta({ description: "the item's signer" }),
    approvedWincAmount: Winc,
    usedWincAmount: Winc.meta({ description: 'spent through it so far' }),
    creationDate: z.iso.datetime().optional(),
    expirationDate: z.iso.datetime().optional().meta({ description: 'absent: no expiry' }),
  })
  .meta({ id: 'DelegatedPaymentApproval' });

export const UploadAnswerBody = Receipt.extend({
  createdApproval: DelegatedApprovalBody.optional().meta({
    description: 'the item was tagged `x-approve-payment` (or `x-irys-approve-payment`): the approval it granted',
  }),
  revokedApprovals: z.array(DelegatedApprovalBody).optional().meta({
    description:
      'the item was tagged `x-delete-payment-approval` (or `x-irys-delete-payment-approval`): the approval it revoked (a re-sent item: the one its first upload revoked; empty when another revocation took it first)',
  }),
}).meta({ id: 'UploadAnswer', description: 'the receipt, with what the credit-sharing tags of the item changed' });

export const ServiceInfoBody = z
  .object({
    version: z.string().meta({ description: "the service's version" }),
    gateway: z.string().meta({ description: 'origin of the public gateway' }),
    addresses: z
      .object({ arweave: z.string().meta({ description: 'the service wallet that signs receipts and bundles' }) })
      .catchall(z.string())
      .meta({ description: 'by token: `arweave` always, `ethereum`, `solana`, `matic` when configured' }),
    freeUploadLimitBytes: Count.meta({ description: 'items up to this size are free' }),
  })
  .meta({ id: 'ServiceInfo' });

const PayloadFacts = {
  rawContentLength: Count.meta({ description: 'bytes of the signed item' }),
  payloadContentType: z.string().meta({ description: 'first `content-type` tag (any case), else application/octet-stream' }),
  payloadDataStart: Count.meta({ description: 'where the payload starts in the signed item' }),
  payloadContentLength: Count.meta({ description: 'rawContentLength - payloadDataStart' }),
};

export const TxStatusBody = z
  .object({
    status: z.enum(['CONFIRMED', 'FINALIZED', 'FAILED']),
    info: z.enum(['new', 'pending', 'permanent', 'failed', 'damaged']),
    winc: Winc,
    bundleId: z.string().optional().meta({ description: "the bundle transaction's id, once prepared" }),
    startOffsetInRootBundle: Count.optional().meta({ description: "the item's byte offset in the bundle's data, once planned" }),
    ...PayloadFacts,
    quarantined: z
      .literal(true)
      .optional()
      .meta({ description: 'held by the operator: in no bundle planned meanwhile, and its bytes answer 451 until it is released (absent when not held)' }),
  })
  .meta({
    id: 'TxStatus',
    description:
      'CONFIRMED/new: accepted; CONFIRMED/pending: in a bundle; FINALIZED/permanent; FAILED/failed; ' +
      'FAILED/damaged: its stored bytes no longer match its acceptance, it is bundled again once the same item is uploaded again',
  });

export const TxOffsetsBody = z
  .object({
    rootBundleId: z.string(),
    startOffsetInRootBundle: Count,
    ...PayloadFacts,
    parentDataItemId: z.string().optional().meta({ description: 'for an item nested in an uploaded bundle item' }),
    startOffsetInParentDataItemPayload: Count.optional(),
  })
  .meta({ id: 'TxOffsets' });

export const BalanceBody = z
  .object({
    address: z.string(),
    winc: Winc.meta({ description: 'available: credited - spent - reserved' }),
    creditedWinc: Winc,
    spentWinc: Winc,
    reservedWinc: Winc,
    givenApprovals: z.array(z.object({ approvedAddress: z.string(), remainingWinc: Winc, expiresAt: z.iso.datetime().optional() })),
  })
  .meta({ id: 'Balance', description: "an account's balance in winc" });

export const CreditAnswerBody = BalanceBody.extend({
  creditId: z.string().meta({ description: 'the credit id, generated when the request had none: a retry with it credits once' }),
}).meta({ id: 'CreditAnswer' });

export const RequeueAnswerBody = z
  .object({
    id: z.string(),
    requeued: z.boolean().meta({
      description:
        'true: back in the bundle queue (`GET /tx/:id/status` answers `CONFIRMED`/`new`); false: it was requeued before and has not failed since, so nothing was done',
    }),
    previousFailure: z.string().optional().meta({ description: 'the reason of the failure it left (when requeued now)' }),
    already: z
      .object({ by: z.string(), reason: z.string(), at: z.string().meta({ description: 'ISO 8601' }) })
      .optional()
      .meta({ description: 'the earlier requeue (when nothing was done)' }),
  })
  .meta({ id: 'RequeueAnswer' });

export const HoldAnswerBody = z
  .object({
    id: z.string(),
    held: z.boolean().meta({ description: 'true: held now; false: it was held before and not released since, so nothing was done' }),
    at: z.string().optional().meta({ description: 'ISO 8601: when it was held (when held now)' }),
    droppedPlan: z
      .string()
      .optional()
      .meta({ description: 'the bundle plan (not yet signed) dropped so the item leaves it; its other items are planned again' }),
    already: z
      .object({ by: z.string(), reason: z.string(), at: z.string().meta({ description: 'ISO 8601' }) })
      .optional()
      .meta({ description: 'the standing hold (when nothing was done)' }),
  })
  .meta({ id: 'HoldAnswer' });

export const ReleaseAnswerBody = z
  .object({
    id: z.string(),
    released: z.boolean().meta({ description: 'true: released now, back in the bundle queue and served; false: it was not held, nothing was done' }),
  })
  .meta({ id: 'ReleaseAnswer' });

export const AccountHistoryBody = z
  .object({
    address: z.string(),
    events: z.array(
      z.object({
        id: z.string(),
        revision: z.string().regex(/^\d+$/),
        position: z.string().regex(/^\d+$/),
        type: z.string(),
        data: z.unknown(),
        metadata: z.unknown(),
        created: z.iso.datetime(),
      }),
    ),
  })
  .meta({ id: 'AccountHistory', description: "the account's events in stream order, as stored" });

export const UploadCreatedBody = z
  .object({
    id: z.string().meta({ description: 'the upload id (144 random bits, base64url)' }),
    min: z.literal(CHUNK_MIN),
    max: z.literal(CHUNK_MAX),
    chunkSize: z.int().min(CHUNK_MIN).max(CHUNK_MAX).optional().meta({ description: 'echoed when given' }),
  })
  .meta({ id: 'UploadCreated' });

export const UploadViewBody = z
  .object({
    id: z.string(),
    min: z.literal(CHUNK_MIN),
    max: z.literal(CHUNK_MAX),
    size: z.int().positive().meta({ description: 'the declared chunk size, else the largest chunk received, else 25000000' }),
    chunks: z.array(z.tuple([Count, z.int().positive()])).meta({ description: '[offset, length] ascending by offset' }),
  })
  .meta({ id: 'UploadView' });

export const UploadStatusBody = z
  .object({
    status: z.enum(['ASSEMBLING', 'VALIDATING', 'FINALIZING', 'FINALIZED', 'INVALID', 'UNDERFUNDED', 'EXPIRED']),
    timestamp: Count.meta({ description: 'ms since the epoch of the last status change' }),
    receipt: UploadAnswerBody.optional().meta({
      description:
        "when FINALIZED; with `createdApproval` / `revokedApprovals` when the item's tags granted or revoked an approval (turbo-sdk returns this receipt as a multi-part upload's answer)",
    }),
  })
  .meta({ id: 'UploadStatus' });

export const FinalizedUploadBody = z
  .object({
    id: z.string().meta({ description: 'the data item id' }),
    data: UploadAnswerBody.meta({ description: "the receipt, with `createdApproval` / `revokedApprovals` as a single upload's answer has them" }),
  })
  .meta({ id: 'FinalizedUpload' });

/** What the handlers build is what these schemas describe: checked by the compiler, nothing at run time. */
type Describes<Schema extends z.ZodType, _Built extends z.output<Schema>> = true;
export type BodiesMatchHandlers = [
  Describes<typeof TxOffsetsBody, TxOffsets>,
  Describes<typeof BalanceBody, BalanceBodyType>,
  Describes<typeof UploadViewBody, { id: string; min: typeof CHUNK_MIN; max: typeof CHUNK_MAX; size: number; chunks: [number, number][] }>,
];

const BlockEntryBody = z
  .object({
    address: z.string().meta({ description: 'the blocked native address (account key)' }),
    by: z.string().meta({ description: 'the operator who blocked it' }),
    reason: z.string(),
    since: z.iso.datetime().meta({ description: 'when it was blocked' }),
  })
  .meta({ id: 'BlockEntry' });

export const BlocklistBody = z
  .object({ blocked: z.array(BlockEntryBody).meta({ description: 'in the order they were blocked' }) })
  .meta({ id: 'Blocklist', description: "the operator's block list: uploads signed by or paid by these addresses answer 403 `Forbidden`" });

export const BlockAnswerBody = z
  .object({
    address: z.string(),
    blocked: z.boolean().meta({ description: 'whether the address is blocked now' }),
    changed: z.boolean().meta({ description: 'false when it already was (blocked again, or unblocked while not blocked): nothing recorded' }),
    entry: BlockEntryBody.optional().meta({ description: 'the block in force (the first one when blocked again)' }),
  })
  .meta({ id: 'BlockAnswer' });

/** turbo-sdk's `TurboPriceResponse`: what `getUploadCosts` resolves to, one per size asked. */
export const UploadCostBody = z
  .object({
    winc: Winc.meta({ description: 'what an upload of that many bytes is charged (0 up to the free limit)' }),
    adjustments: z.array(z.never()).meta({ description: 'always empty: no promotions' }),
    fees: z.array(z.never()).meta({ description: 'always empty: the price has no separate fees' }),
  })
  .meta({ id: 'UploadCost', description: 'the price of an upload, in the shape turbo-sdk parses' });

const Approval = z
  .object({
    payingAddress: z.string(),
    approvedAddress: z.string(),
    remainingWinc: Winc.meta({ description: 'what the approval still allows, before open reservations' }),
    expirationDate: z.iso.datetime().optional(),
  })
  .meta({ id: 'CreditApproval' });

/**
 * A balance by token and address, in the shapes both clients parse: Irys/Bundlr read `balance`,
 * turbo-sdk reads `winc` and the approval lists (its CLI pays with `receivedApprovals`' payers).
 */
export const TokenBalanceBody = z
  .object({
    balance: Winc.meta({ description: 'available winc (what Irys/Bundlr clients read)' }),
    winc: Winc.meta({ description: 'available: credited - spent - reserved' }),
    controlledWinc: Winc.meta({ description: "the same as `winc`: approvals do not lock the payer's credits" }),
    effectiveBalance: Winc.meta({
      description: "`winc` plus what the received approvals let this address spend now (each at most its payer's available credits)",
    }),
    givenApprovals: z.array(Approval).meta({ description: 'approvals this address gave (`payingAddress` is this address)' }),
    receivedApprovals: z.array(Approval).meta({ description: 'approvals in force that other payers gave this address (`approvedAddress` is this address)' }),
  })
  .meta({ id: 'TokenBalance', description: "an account's balance in winc, for the Irys/Bundlr and turbo-sdk clients" });

/** turbo-sdk's `getCreditShareApprovals` (`GET /v1/account/approvals/get?userAddress=`): both lists of the balance by token. */
export const ApprovalsBody = TokenBalanceBody.pick({ givenApprovals: true, receivedApprovals: true }).meta({
  id: 'Approvals',
  description: 'the approvals an address gave and those in force that it received',
});

export const TxHeaderBody = z
  .object({
    id: z.string().meta({ description: 'the data item id' }),
    signatureType: z.int().meta({ description: '1 to 7, as ANS-104 numbers them' }),
    signature: z.string().meta({ description: 'base64url of the raw signature' }),
    owner: z.string().meta({ description: "base64url of the owner's public key" }),
    ownerAddress: z.string().meta({ description: "the owner's native address (the account key of CONTRACT.md section 5)" }),
    target: z.string().optional().meta({ description: 'base64url, when present' }),
    anchor: z.string().optional().meta({ description: 'base64url, when present' }),
    tags: z.array(z.object({ name: z.string(), value: z.string() })),
    ...PayloadFacts,
  })
  .meta({ id: 'TxHeader', description: "the signed item's ANS-104 header fields and sizes" });

export const TopUpRequestBody = z
  .object({
    tx_id: z.string().meta({
      description: "the id of the transaction that sent tokens to the service's address of `/info` (arweave: 43 characters; ethereum: 0x and 64 hex digits)",
    }),
  })
  .meta({ id: 'TopUpRequest', description: 'the Irys/Bundlr `fund()` and turbo-sdk `submitFundTransaction` claim' });

const TopUpTransaction = z.object({
  transactionId: z.string(),
  tokenType: z.string().meta({ description: 'the token of the path' }),
  transactionQuantity: z.string().meta({ description: "what was sent, in the chain's base unit (winston, wei)" }),
  winstonCreditAmount: Winc.meta({ description: 'the winc it is worth at the configured rate' }),
  destinationAddress: z.string().meta({ description: 'the account credited' }),
  destinationAddressType: z.string().meta({ description: 'the token of the path' }),
  transactionSenderAddress: z.string(),
  blockHeight: z.int().optional().meta({ description: 'present once credited' }),
});

export const TopUpAnswerBody = z
  .object({
    confirmed: z.boolean().meta({ description: 'credited now; false: claimed, credited once the transaction has the configured confirmations' }),
    winc: Winc.meta({ description: 'what the transaction is worth (credited now, or once confirmed)' }),
    message: z.string(),
    creditedTransaction: TopUpTransaction.optional().meta({ description: 'when `confirmed` (turbo-sdk reads it)' }),
    pendingTransaction: TopUpTransaction.optional().meta({ description: 'when not `confirmed` (turbo-sdk reads it)' }),
  })
  .meta({ id: 'TopUpAnswer', description: 'a top-up claimed: `{ confirmed, winc }`, with the transaction as turbo-sdk parses it' });
