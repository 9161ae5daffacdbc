import { z } from 'zod';
import { Receipt } from '../receipt.js';

/** Events of the `dataItem-<id>` stream. */

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
  }),
});
export type DataItemAccepted = z.infer<typeof DataItemAccepted>;

/** the item could not be made permanent after the configured number of bundle attempts */
export const DataItemFailed = z.object({
  type: z.literal('DataItemFailed'),
  data: z.object({ id: z.string(), attempts: z.number().int().positive(), reason: z.string(), timestamp: z.number().int() }),
});

export const DataItemEvent = z.discriminatedUnion('type', [DataItemAccepted, DataItemFailed]);
export type DataItemEvent = z.infer<typeof DataItemEvent>;
const dataItemEventTypes: ReadonlySet<string> = new Set(DataItemEvent.options.map((o) => o.shape.type.value));
export const isDataItemEvent = (e: { type: string }): e is DataItemEvent => dataItemEventTypes.has(e.type);
