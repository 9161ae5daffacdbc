import { z } from 'zod';

/** Events of the `account-<address>` stream. Amounts are winc as decimal strings (exact, unbounded). */

const Winc = z.string().regex(/^\d+$/);

/** the on-chain transfer a top-up credit pays for, as read from the chain when it was credited */
export const OnChainTransfer = z.object({
  token: z.string(),
  txId: z.string(),
  sender: z.string(),
  /** the service's address it went to */
  target: z.string(),
  /** in the chain's base unit (winston, wei) */
  quantity: Winc,
  blockHeight: z.number().int().nonnegative(),
});
export type OnChainTransfer = z.infer<typeof OnChainTransfer>;

export const AccountCredited = z.object({
  type: z.literal('AccountCredited'),
  data: z.object({
    address: z.string(),
    winc: Winc,
    creditId: z.string(),
    reason: z.string().optional(),
    /** a top-up with the user's own tokens (absent: an operator's credit); its credit id is `<token>:<txId>` */
    onChain: OnChainTransfer.optional(),
    timestamp: z.number().int(),
  }),
});

export const BalanceReserved = z.object({
  type: z.literal('BalanceReserved'),
  data: z.object({
    address: z.string(),
    reservationId: z.string(),
    winc: Winc,
    dataItemId: z.string(),
    /** set when this account pays for another owner through a payment approval */
    onBehalfOf: z.string().optional(),
    timestamp: z.number().int(),
  }),
});

export const ReservationSettled = z.object({
  type: z.literal('ReservationSettled'),
  data: z.object({ address: z.string(), reservationId: z.string(), winc: Winc, dataItemId: z.string(), timestamp: z.number().int() }),
});

export const ReservationReleased = z.object({
  type: z.literal('ReservationReleased'),
  data: z.object({
    address: z.string(),
    reservationId: z.string(),
    winc: Winc,
    dataItemId: z.string(),
    reason: z.string(),
    timestamp: z.number().int(),
  }),
});

export const PaymentApproved = z.object({
  type: z.literal('PaymentApproved'),
  data: z.object({
    /** the paying account (this stream's address) */
    address: z.string(),
    approvedAddress: z.string(),
    /** the most the approved owner may spend from now on; replaces any earlier approval */
    winc: Winc,
    expiresAt: z.number().int().optional(),
    /** set when the payer granted it by uploading an item tagged `x-approve-payment` (that item's id) */
    approvalDataItemId: z.string().optional(),
    timestamp: z.number().int(),
  }),
});

export const PaymentApprovalRevoked = z.object({
  type: z.literal('PaymentApprovalRevoked'),
  data: z.object({
    address: z.string(),
    approvedAddress: z.string(),
    /** set when the payer revoked it by uploading an item tagged `x-delete-payment-approval` (that item's id) */
    revokeDataItemId: z.string().optional(),
    timestamp: z.number().int(),
  }),
});

/**
 * An item's charge given back: the item ended FAILED (out of bundle attempts, never made permanent). Once
 * per failure of the item (`failure`: how many times it had failed then, 1 for its first), to the account
 * that was charged, the charge's exact winc; the refunder records it, and so does a requeue of an item
 * whose failure was not refunded yet (in one append with its `ItemRecharged`, so the two cancel out).
 */
export const ChargeRefunded = z.object({
  type: z.literal('ChargeRefunded'),
  data: z.object({
    address: z.string(),
    dataItemId: z.string(),
    /** the reservation the charge settled */
    reservationId: z.string(),
    winc: Winc,
    failure: z.number().int().positive(),
    reason: z.string(),
    timestamp: z.number().int(),
  }),
});

/**
 * A refunded item requeued by the operator is charged its refunded winc again (never a free permanent
 * item): once per failure it leaves, before the item's `DataItemRequeued`.
 */
export const ItemRecharged = z.object({
  type: z.literal('ItemRecharged'),
  data: z.object({
    address: z.string(),
    dataItemId: z.string(),
    winc: Winc,
    failure: z.number().int().positive(),
    /** who requeued it */
    by: z.string(),
    timestamp: z.number().int(),
  }),
});

export const AccountEvent = z.discriminatedUnion('type', [
  AccountCredited,
  BalanceReserved,
  ReservationSettled,
  ReservationReleased,
  PaymentApproved,
  PaymentApprovalRevoked,
  ChargeRefunded,
  ItemRecharged,
]);
export type AccountEvent = z.infer<typeof AccountEvent>;

const accountEventTypes: ReadonlySet<string> = new Set(AccountEvent.options.map((o) => o.shape.type.value));
export const isAccountEvent = (e: { type: string }): e is AccountEvent => accountEventTypes.has(e.type);
