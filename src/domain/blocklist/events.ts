import { z } from 'zod';

/**
 * Events of the one `blocklist` stream: the operator's block list of addresses (native addresses, as
 * accounts are keyed: CONTRACT.md section 5). An upload signed by, or naming as payer, a blocked
 * address is refused with 403 `Forbidden`. Who did it and why are kept for good.
 */

const Change = z.object({
  /** the canonical account key (parseAccountAddress) */
  address: z.string(),
  /** the operator who made the change, as given */
  by: z.string(),
  reason: z.string(),
  timestamp: z.number().int(),
});

export const AddressBlocked = z.object({ type: z.literal('AddressBlocked'), data: Change });
export const AddressUnblocked = z.object({ type: z.literal('AddressUnblocked'), data: Change });

export const BlocklistEvent = z.discriminatedUnion('type', [AddressBlocked, AddressUnblocked]);
export type BlocklistEvent = z.infer<typeof BlocklistEvent>;

const blocklistEventTypes: ReadonlySet<string> = new Set(BlocklistEvent.options.map((o) => o.shape.type.value));
export const isBlocklistEvent = (e: { type: string }): e is BlocklistEvent => blocklistEventTypes.has(e.type);
