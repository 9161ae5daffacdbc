import { z } from 'zod';

/**
 * Events of a `topUp-<token>-<txId>` stream: one on-chain transfer to the service, claimed by a user
 * (`POST /account/balance/:token` with `{ tx_id }`). The stream is created with "no stream", so a
 * transaction is claimed once whoever claims it; the credit itself is an `AccountCredited` on the
 * credited account whose credit id is `<token>:<txId>` (creditIdOfTransfer), applied once.
 */

const Amount = z.string().regex(/^\d+$/);

export const TopUpClaimed = z.object({
  type: z.literal('TopUpClaimed'),
  data: z.object({
    /** the chain, as `/info` names it: `arweave`, `ethereum` */
    token: z.string(),
    txId: z.string(),
    /** who sent it (the chain's native address, as accounts are keyed) */
    sender: z.string(),
    /** the account credited: the sender, or the destination the transaction names (a `Turbo-Credit-Destination-Address` tag) */
    address: z.string(),
    /** the service's address the transfer went to */
    target: z.string(),
    /** what was sent, in the chain's base unit (winston, wei) */
    quantity: Amount,
    /** what it is worth at the configured rate, credited once confirmed */
    winc: Amount,
    /** confirmed enough at the claim (credited at once), or pending (credited by a later check) */
    confirmed: z.boolean(),
    timestamp: z.number().int(),
  }),
});
export type TopUpClaimed = z.infer<typeof TopUpClaimed>;

/**
 * A pending claim whose transaction the chain no longer knows (never mined, dropped from the mempool)
 * after the configured time: it is no longer checked, and the transaction may be claimed again (a
 * transaction sent again with the same id, as Ethereum allows, is then credited, still once).
 */
export const TopUpExpired = z.object({
  type: z.literal('TopUpExpired'),
  data: z.object({ token: z.string(), txId: z.string(), address: z.string(), claimedAt: z.number().int(), timestamp: z.number().int() }),
});

export const TopUpEvent = z.discriminatedUnion('type', [TopUpClaimed, TopUpExpired]);
export type TopUpEvent = z.infer<typeof TopUpEvent>;

const topUpEventTypes: ReadonlySet<string> = new Set(TopUpEvent.options.map((o) => o.shape.type.value));
export const isTopUpEvent = (e: { type: string }): e is TopUpEvent => topUpEventTypes.has(e.type);
