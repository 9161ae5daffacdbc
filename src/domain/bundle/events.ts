import { z } from 'zod';

/** Events of the `bundle-<planId>` stream (DESIGN.md section 4). */

const base = {
  planId: z.string(),
  timestamp: z.number().int(),
  /**
   * the fencing token of the bundler that recorded it (see lease.ts): a command under an older one
   * is refused. Absent on events recorded before fencing, or by a bundler run without a lease.
   */
  fence: z.number().int().nonnegative().optional(),
};
/** item ids in the bundle, so read models keyed by item follow the bundle without another lookup */
const itemIds = z.array(z.string());

export const BundlePlanned = z.object({
  type: z.literal('BundlePlanned'),
  data: z.object({
    ...base,
    /** in bundle order; `offset` is where the raw item starts in the bundle's data (fixed here) */
    items: z.array(z.object({ id: z.string(), size: z.number().int().nonnegative(), offset: z.number().int().nonnegative() })),
    headerSize: z.number().int().positive(),
    totalSize: z.number().int().positive(),
  }),
});

export const BundlePrepared = z.object({
  type: z.literal('BundlePrepared'),
  data: z.object({
    ...base,
    itemIds,
    txId: z.string(),
    reward: z.string().regex(/^\d+$/),
    anchor: z.string(),
    dataRoot: z.string(),
    dataSize: z.number().int().positive(),
    /** the gateway's block height when the anchor was taken: not seen 50 blocks later, the bundle is dropped */
    anchorHeight: z.number().int().nonnegative(),
    /** the signed transaction header (data empty): posting again after a restart posts the same one */
    tx: z.record(z.string(), z.unknown()),
  }),
});

export const BundlePosted = z.object({ type: z.literal('BundlePosted'), data: z.object({ ...base, txId: z.string() }) });
export const BundleSeeded = z.object({ type: z.literal('BundleSeeded'), data: z.object({ ...base, txId: z.string() }) });

/**
 * the block holding the transaction, as the gateway's `/tx/{id}/status` names it: `blockHash` is its
 * `indep_hash` (proofs name the block with it); absent on events recorded before it was kept, or
 * when the gateway did not name it
 */
const blockSeen = { blockHeight: z.number().int(), blockHash: z.string().optional(), confirmations: z.number().int() };

export const BundleConfirmed = z.object({
  type: z.literal('BundleConfirmed'),
  data: z.object({ ...base, txId: z.string(), ...blockSeen }),
});

/** the block that holds a bundle's transaction, as the gateway describes it (`GET /block/hash/{id}`) */
export const MinedBlock = z.object({ id: z.string(), timestamp: z.number().int(), previous: z.string() });
export type MinedBlock = z.infer<typeof MinedBlock>;

export const BundlePermanent = z.object({
  type: z.literal('BundlePermanent'),
  data: z.object({
    ...base,
    itemIds,
    txId: z.string(),
    ...blockSeen,
    /** for the GraphQL read model: the block as `GET /block/hash/{id}` describes it; absent on events of earlier versions, or when the gateway named no block */
    block: MinedBlock.optional(),
  }),
});

export const BundleDropped = z.object({
  type: z.literal('BundleDropped'),
  data: z.object({
    ...base,
    itemIds,
    txId: z.string().optional(),
    reason: z.string(),
    /**
     * dropped because these items' stored bytes are damaged (each has its DataItemDamaged): they
     * leave the queue, and the drop counts as no attempt of the others, which go back to it
     */
    damagedItemIds: z.array(z.string()).optional(),
    /**
     * false: dropped for a reason that is not about this bundle (the service wallet could not pay
     * for it, a transaction never taken by the gateway): its items go back to the queue with no
     * attempt counted. Schema version 2: a drop stored before the field existed (version 1, absent)
     * counted, and is upcast to `true` when read (src/domain/upcasters.ts).
     */
    countsAsAttempt: z.boolean(),
  }),
});

/**
 * The service wallet's balance is below the bundle's reward: the bundle waits, planned, until the
 * wallet is funded (no attempt counted, no item failed). Recorded once per bundle, when it starts
 * waiting; the posting that follows funding is its BundlePrepared.
 */
export const BundleAwaitingFunds = z.object({
  type: z.literal('BundleAwaitingFunds'),
  data: z.object({
    ...base,
    /** the network's price of the bundle's bytes, in winston */
    reward: z.string().regex(/^\d+$/),
    /** the wallet's balance when the bundle started waiting, in winston */
    balance: z.string().regex(/^\d+$/),
    /** the wallet that pays */
    address: z.string(),
  }),
});

export const BundleEvent = z.discriminatedUnion('type', [
  BundlePlanned,
  BundleAwaitingFunds,
  BundlePrepared,
  BundlePosted,
  BundleSeeded,
  BundleConfirmed,
  BundlePermanent,
  BundleDropped,
]);
export type BundleEvent = z.infer<typeof BundleEvent>;

const bundleEventTypes: ReadonlySet<string> = new Set(BundleEvent.options.map((o) => o.shape.type.value));
export const isBundleEvent = (e: { type: string }): e is BundleEvent => bundleEventTypes.has(e.type);
