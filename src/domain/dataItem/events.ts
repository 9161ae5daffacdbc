import { z } from 'zod';
import { Receipt } from '../receipt.js';

/** Events of the `dataItem-<id>` stream. */

/**
 * What the GraphQL read model finds an item by, as its header says (tags as the wire's name/value
 * strings; target and anchor base64url). Optional: events recorded before these fields existed lack
 * them, and their items are found by id, owner and bundle only, with no tags, target or anchor.
 */
const Tag = z.object({ name: z.string(), value: z.string() });
const headerFields = {
  tags: z.array(Tag).optional(),
  target: z.string().optional(),
  anchor: z.string().optional(),
};

export const DataItemAccepted = z.object({
  type: z.literal('DataItemAccepted'),
  data: z.object({
    id: z.string(),
    signatureType: z.number().int(),
    /** base64url(sha256(owner public key)), as in the receipt */
    owner: z.string(),
    /** the payer account key of CONTRACT.md section 5 */
    nativeAddress: z.string(),
    token: z.string(),
    rawContentLength: z.number().int().nonnegative(),
    payloadDataStart: z.number().int().nonnegative(),
    payloadContentType: z.string(),
    blobKey: z.string(),
    /** hex sha256 of the raw item bytes, checked by the audit against the blob */
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    winc: z.string().regex(/^\d+$/),
    /** the account charged, and its reservation; absent when the item was free */
    payer: z.string().optional(),
    reservationId: z.string().optional(),
    timestamp: z.number().int(),
    deadlineHeight: z.number().int(),
    /** the whole receipt, so a duplicate gets the original back byte for byte */
    receipt: Receipt,
    uploadId: z.string().optional(),
    /**
     * the payload is an ANS-104 bundle, so `NestedItemsIndexed` follows (indexed after the answer);
     * until its last part is recorded, the item is in the pending-nested-index read model
     */
    nestedBundle: z.literal(true).optional(),
    ...headerFields,
  }),
});
export type DataItemAccepted = z.infer<typeof DataItemAccepted>;

/** the item could not be made permanent after the configured number of bundle attempts */
export const DataItemFailed = z.object({
  type: z.literal('DataItemFailed'),
  data: z.object({ id: z.string(), attempts: z.number().int().positive(), reason: z.string(), timestamp: z.number().int() }),
});
export type DataItemFailed = z.infer<typeof DataItemFailed>;

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);

/**
 * The item's stored bytes no longer are the ones it was accepted with (a blob changed, cut short or
 * lost: bit rot, an operator's mistake, a write into the store): found by the bundler while it
 * prepared or posted bundle `planId`. The item leaves the bundle queue, so no bundle ever carries
 * other bytes under its id, until the same item is uploaded again (`DataItemRepaired`).
 */
export const DataItemDamaged = z.object({
  type: z.literal('DataItemDamaged'),
  data: z.object({
    id: z.string(),
    blobKey: z.string(),
    /** what the blob was found to be: absent, shorter or longer than accepted, or of another sha256 */
    found: z.enum(['missing', 'short', 'long', 'digest']),
    /** bytes found under the key (at least this many when `long`) */
    size: z.number().int().nonnegative().optional(),
    /** hex sha256 of the bytes found, when they were read whole */
    sha256: Sha256.optional(),
    /** the bundle being prepared or posted when the damage was found */
    planId: z.string().optional(),
    timestamp: z.number().int(),
  }),
});
export type DataItemDamaged = z.infer<typeof DataItemDamaged>;

/** A new upload of a damaged item, verified and of the accepted sha256, put its bytes back: it is queued again. */
export const DataItemRepaired = z.object({
  type: z.literal('DataItemRepaired'),
  data: z.object({
    id: z.string(),
    /** of the bytes restored: the accepted one */
    sha256: Sha256,
    /** the multi-part upload that brought the bytes, if one did */
    uploadId: z.string().optional(),
    timestamp: z.number().int(),
  }),
});
export type DataItemRepaired = z.infer<typeof DataItemRepaired>;

/**
 * An operator put a FAILED item back in the bundle queue (`npm run requeue`, `POST /admin/items/:id/requeue`):
 * it waits for a bundle again, with its attempts counted from zero. Carries what the queue needs of
 * the acceptance (size, time), so the read models rebuild it without reading the item's stream.
 */
export const DataItemRequeued = z.object({
  type: z.literal('DataItemRequeued'),
  data: z.object({
    id: z.string(),
    /** who asked: the operator's name as given to the CLI or the admin API */
    by: z.string(),
    /** why, in the operator's words */
    reason: z.string(),
    /** the reason of the failure it leaves behind, and the attempts it had used */
    previousFailure: z.string(),
    previousAttempts: z.number().int().nonnegative(),
    rawContentLength: z.number().int().nonnegative(),
    /** the acceptance's time: the bundler's wait limit counts from it, so a requeued item goes in the next bundle */
    acceptedAt: z.number().int(),
    timestamp: z.number().int(),
  }),
});
export type DataItemRequeued = z.infer<typeof DataItemRequeued>;

/**
 * The item is held (quarantined): out of every bundle planned from now on and out of every read of
 * its bytes (451), nested items included, until released. Recorded by an operator (`npm run
 * quarantine`, `PUT /admin/items/:id/quarantine`) or, at its acceptance, by an operator's rule
 * (QUARANTINE_RULES; `rule` names it). Never recorded for an item already in a signed bundle: that
 * one is on its way to Arweave, and holding it would promise what cannot be kept (src/app/quarantine.ts).
 */
export const DataItemQuarantined = z.object({
  type: z.literal('DataItemQuarantined'),
  data: z.object({
    id: z.string(),
    /** who: the operator's name as given to the CLI or the admin API; `rule:<name>` for a rule at acceptance */
    by: z.string(),
    /** why, in the operator's words (or the rule's) */
    reason: z.string(),
    /** the acceptance rule that held it, when one did */
    rule: z.string().optional(),
    timestamp: z.number().int(),
  }),
});
export type DataItemQuarantined = z.infer<typeof DataItemQuarantined>;

/**
 * The hold is lifted: the item waits for a bundle again and is served. `refused` says the hold
 * itself was too late (the item's bundle was signed while the hold was being recorded): the hold
 * never held, and the item goes to Arweave with its bundle.
 */
export const DataItemReleased = z.object({
  type: z.literal('DataItemReleased'),
  data: z.object({
    id: z.string(),
    by: z.string(),
    reason: z.string(),
    /** the signed bundle that made the hold too late, when that is why it was lifted */
    refused: z.object({ planId: z.string(), txId: z.string() }).optional(),
    timestamp: z.number().int(),
  }),
});
export type DataItemReleased = z.infer<typeof DataItemReleased>;

/**
 * Where an item nested in this (root) item's payload sits, at any depth. Offsets are from raw
 * starts, so the root's offset in its bundle plus `offsetInRootItem` is the item's offset there.
 */
export const NestedItem = z.object({
  id: z.string(),
  /** the item whose payload is the bundle holding this one: the root or another nested item */
  parentId: z.string(),
  /** from the first byte of the parent's payload (the bundle's count field) to this item's raw start */
  startOffsetInParentDataItemPayload: z.number().int().nonnegative(),
  /** from the first byte of the root item's raw bytes to this item's raw start */
  offsetInRootItem: z.number().int().nonnegative(),
  rawContentLength: z.number().int().nonnegative(),
  payloadDataStart: z.number().int().nonnegative(),
  payloadContentType: z.string(),
  /** 1 for items of the root's own bundle, 2 for items of a bundle inside one of those, ... */
  depth: z.number().int().positive(),
  /** base64url(sha256(owner public key)), as `DataItemAccepted`'s `owner` (absent on events of earlier versions) */
  owner: z.string().optional(),
  signatureType: z.number().int().optional(),
  ...headerFields,
});
export type NestedItem = z.infer<typeof NestedItem>;

/**
 * The root item's payload is an ANS-104 bundle: its items, found after its acceptance. A large index
 * is split over several events (parts, appended one after another); `unindexed` names the bundles
 * or entries left out (malformed, not verifying, too deep, too many), so the history says why an
 * item has no offsets.
 */
export const NestedItemsIndexed = z.object({
  type: z.literal('NestedItemsIndexed'),
  data: z.object({
    /** the root item: the stream's own item */
    id: z.string(),
    /** in the order of their bytes in the root item (parents before their children) */
    items: z.array(NestedItem),
    unindexed: z.array(z.object({ id: z.string(), reason: z.string() })).optional(),
    timestamp: z.number().int(),
    /** each item's signature was verified over its bytes; absent on events of earlier versions, which checked only ids */
    verified: z.literal(true).optional(),
    /** more parts of this index follow; absent on the last (earlier versions appended every part at once) */
    more: z.literal(true).optional(),
  }),
});
export type NestedItemsIndexed = z.infer<typeof NestedItemsIndexed>;

/**
 * The signed headers of items of this stream (the item itself, and/or items nested in it) were posted
 * to an optical bridge gateway's queue (`POST /ar-io/admin/queue-data-item`, ar-io-node), or given up
 * on: one event per gateway and batch, once its retries are over, never one per retry. Receipts name
 * the gateway in `fastFinalityIndexes` only while its posts succeed (src/app/bridge).
 */
export const DataItemBridged = z.object({
  type: z.literal('DataItemBridged'),
  data: z.object({
    /** the stream's own item */
    id: z.string(),
    /** the items whose headers were in the posts: this one and/or items nested in it */
    items: z.array(z.string()).min(1),
    /** the gateway's host (`gateway.example:443` as URL.host spells it) */
    gateway: z.string(),
    ok: z.boolean(),
    /** the last answer's HTTP status; absent when none came (refused, timed out) or no post was made */
    status: z.number().int().optional(),
    /** posts made for these items to this gateway (0: none could be made, see `error`) */
    attempts: z.number().int().nonnegative(),
    /** why it failed, when it did */
    error: z.string().optional(),
    timestamp: z.number().int(),
  }),
});
export type DataItemBridged = z.infer<typeof DataItemBridged>;

/**
 * The item's local bytes were given up, its bundle being permanent on Arweave for the retention time
 * (RETAIN_PERMANENT_BYTES_MS): from now on its bytes, and those of the items nested in it, are read
 * from the gateway, at `startOffsetInRootBundle` in the data of transaction `bundleId`, and checked
 * against `sha256` (the acceptance's). Recorded before the blob is deleted (docs/decisions.md), so a
 * blob still there after it is one whose deletion a crash cut: the orphan sweep removes it.
 */
export const ItemBytesRetired = z.object({
  type: z.literal('ItemBytesRetired'),
  data: z.object({
    id: z.string(),
    blobKey: z.string(),
    sha256: Sha256,
    rawContentLength: z.number().int().nonnegative(),
    /** the permanent bundle: its plan and transaction, and the item's first byte in the transaction's data */
    planId: z.string(),
    bundleId: z.string(),
    startOffsetInRootBundle: z.number().int().nonnegative(),
    /** when the bundle was recorded permanent (its BundlePermanent's time) */
    permanentAt: z.number().int(),
    timestamp: z.number().int(),
  }),
});
export type ItemBytesRetired = z.infer<typeof ItemBytesRetired>;

export const DataItemEvent = z.discriminatedUnion('type', [
  DataItemAccepted,
  DataItemBridged,
  NestedItemsIndexed,
  DataItemFailed,
  DataItemDamaged,
  DataItemRepaired,
  DataItemRequeued,
  DataItemQuarantined,
  DataItemReleased,
  ItemBytesRetired,
]);
export type DataItemEvent = z.infer<typeof DataItemEvent>;
const dataItemEventTypes: ReadonlySet<string> = new Set(DataItemEvent.options.map((o) => o.shape.type.value));
export const isDataItemEvent = (e: { type: string }): e is DataItemEvent => dataItemEventTypes.has(e.type);
