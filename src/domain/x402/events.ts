import { z } from 'zod';

/**
 * Events of an `x402Payment-<paymentId>` stream: one EIP-3009 authorization (payer and nonce on one
 * network) presented as an x402 payment. `X402SettlementStarted` is written before the settlement is
 * submitted, so a crash at any later moment leaves a record the recovery pass finds; the settled
 * payment itself is the `AccountCredited` on the payer's account whose credit id is the payment id,
 * applied once; `X402SettlementFailed` ends a settlement that did not take the payer's USDC.
 */

const Amount = z.string().regex(/^\d+$/);

export const X402SettlementStarted = z.object({
  type: z.literal('X402SettlementStarted'),
  data: z.object({
    /** `x402:<network>:<payer>:<nonce>` (lower case): the stream key and the id of the credit it buys */
    paymentId: z.string(),
    /** x402's name of the network (`base`, `base-sepolia`, ...) */
    network: z.string(),
    /** the authorizer, checksummed (the account credited) */
    payer: z.string(),
    /** the EIP-3009 nonce (0x, 32 bytes) */
    nonce: z.string(),
    /** the USDC contract and the address paid */
    asset: z.string(),
    payTo: z.string(),
    /** USDC atomic units authorized */
    usdc: Amount,
    /** the winc that USDC credits, settled */
    winc: Amount,
    /** the authorization's `validBefore` (seconds since the epoch): unused after it, it never settles */
    validBefore: z.number().int(),
    /** the item it pays for */
    dataItemId: z.string(),
    timestamp: z.number().int(),
  }),
});
export type X402SettlementStarted = z.infer<typeof X402SettlementStarted>;

/** the settlement did not take the USDC: refused (the answer said so), or unused past `validBefore` (the chain says so) */
export const X402SettlementFailed = z.object({
  type: z.literal('X402SettlementFailed'),
  data: z.object({ paymentId: z.string(), payer: z.string(), reason: z.string(), timestamp: z.number().int() }),
});

export const X402PaymentEvent = z.discriminatedUnion('type', [X402SettlementStarted, X402SettlementFailed]);
export type X402PaymentEvent = z.infer<typeof X402PaymentEvent>;

const x402PaymentEventTypes: ReadonlySet<string> = new Set(X402PaymentEvent.options.map((o) => o.shape.type.value));
export const isX402PaymentEvent = (e: { type: string }): e is X402PaymentEvent => x402PaymentEventTypes.has(e.type);
