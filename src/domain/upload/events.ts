import { z } from 'zod';
import { Receipt } from '../receipt.js';

/** Events of the `upload-<uploadId>` stream (multi-part uploads, CONTRACT.md section 4). */

const base = { uploadId: z.string(), timestamp: z.number().int() };

export const UploadCreated = z.object({
  type: z.literal('UploadCreated'),
  data: z.object({ ...base, token: z.string(), chunkSize: z.number().int().positive().optional() }),
});

export const ChunkReceived = z.object({
  type: z.literal('ChunkReceived'),
  data: z.object({
    ...base,
    offset: z.number().int().nonnegative(),
    length: z.number().int().positive(),
    /**
     * hex sha256 of the chunk's bytes, recorded by earlier versions only: a chunk is no longer hashed
     * on its own (its bytes are hashed once, into the item's digests: docs/decisions.md), and an
     * identical re-send is found by comparing bytes
     */
    sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .optional(),
    /** the chunk's own blob, written once and never again (earlier versions: the upload's one blob) */
    blobKey: z.string(),
    /** the chunk recorded at this offset before, which this one replaces (its blob is deleted) */
    replaced: z.object({ length: z.number().int().positive(), blobKey: z.string() }).optional(),
    /** offset 0: the owner's native address, when the chunk holds the item's whole header */
    owner: z.string().optional(),
  }),
});

export const UploadFinalizeRequested = z.object({
  type: z.literal('UploadFinalizeRequested'),
  data: z.object({ ...base, mode: z.enum(['sync', 'async']), paidBy: z.array(z.string()) }),
});

export const UploadValidated = z.object({
  type: z.literal('UploadValidated'),
  data: z.object({ ...base, dataItemId: z.string(), size: z.number().int().nonnegative() }),
});

/**
 * An approval as the answers name it: the reference's `DelegatedPaymentApproval` (ardriveapp/turbo-upload-service
 * src/arch/payment.ts at c660dd8), turbo-sdk's `CreditShareApproval`.
 */
const DelegatedApproval = z.object({
  approvalDataItemId: z.string().optional(),
  approvedAddress: z.string(),
  payingAddress: z.string(),
  approvedWincAmount: z.string(),
  usedWincAmount: z.string(),
  creationDate: z.string().optional(),
  expirationDate: z.string().optional(),
});

/** what an item's credit-sharing tags changed (src/app/accounts/taggedApprovals.ts), as answered when it was finalized */
export const UploadApprovals = z.object({
  createdApproval: DelegatedApproval.optional(),
  revokedApprovals: z.array(DelegatedApproval).optional(),
});
export type UploadApprovals = z.infer<typeof UploadApprovals>;

export const UploadFinalized = z.object({
  type: z.literal('UploadFinalized'),
  data: z.object({
    ...base,
    dataItemId: z.string(),
    receipt: Receipt,
    /** the item had already been stored (by another upload): the finalize answer is 202 */
    existed: z.boolean().optional(),
    /** set when the item is tagged to grant or revoke an approval: the answers carry it beside the receipt */
    approvals: UploadApprovals.optional(),
  }),
});

export const UploadInvalid = z.object({
  type: z.literal('UploadInvalid'),
  data: z.object({ ...base, reason: z.string() }),
});

export const UploadUnderfunded = z.object({
  type: z.literal('UploadUnderfunded'),
  data: z.object({ ...base, dataItemId: z.string() }),
});

export const UploadExpired = z.object({
  type: z.literal('UploadExpired'),
  data: z.object({ ...base }),
});

export const UploadEvent = z.discriminatedUnion('type', [
  UploadCreated,
  ChunkReceived,
  UploadFinalizeRequested,
  UploadValidated,
  UploadFinalized,
  UploadInvalid,
  UploadUnderfunded,
  UploadExpired,
]);
export type UploadEvent = z.infer<typeof UploadEvent>;

const uploadEventTypes: ReadonlySet<string> = new Set(UploadEvent.options.map((o) => o.shape.type.value));
export const isUploadEvent = (e: { type: string }): e is UploadEvent => uploadEventTypes.has(e.type);
