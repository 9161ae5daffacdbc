import { match } from 'ts-pattern';
import type { Receipt } from '../receipt.js';
import { InvalidChunk, UploadAlreadyFinalized, UploadNotFound } from '../errors.js';
import type { UploadApprovals, UploadEvent } from './events.js';
import { chunkRefusal, ownerKnown, pastLifetime, type Upload, type UploadLifetimes, type UploadState } from './state.js';

/** The multi-part upload aggregate. Pure: ids, time, digests and verification results come in the command. */
export type UploadCommand =
  | { type: 'CreateUpload'; data: { uploadId: string; token: string; chunkSize?: number; now: number } }
  | {
      type: 'ReceiveChunk';
      data: {
        uploadId: string;
        offset: number;
        length: number;
        blobKey: string;
        owner?: string;
        /** the blob of the chunk recorded at this offset, whose bytes this chunk's were found to equal */
        sameBytesAs?: string;
        maxChunks: number;
        now: number;
      };
    }
  | { type: 'RequestFinalize'; data: { uploadId: string; mode: 'sync' | 'async'; paidBy: string[]; now: number } }
  | { type: 'MarkValidated'; data: { uploadId: string; dataItemId: string; size: number; now: number } }
  | { type: 'MarkFinalized'; data: { uploadId: string; dataItemId: string; receipt: Receipt; existed?: boolean; approvals?: UploadApprovals; now: number } }
  | { type: 'MarkInvalid'; data: { uploadId: string; reason: string; now: number } }
  | { type: 'MarkUnderfunded'; data: { uploadId: string; dataItemId: string; now: number } }
  | { type: 'Expire'; data: { uploadId: string; lifetimes: UploadLifetimes; now: number } };

const live = (state: UploadState, uploadId: string): Upload => {
  if (!state || state.status === 'EXPIRED') throw new UploadNotFound(uploadId);
  return state;
};

const finalizing = (state: UploadState) => state?.status === 'VALIDATING' || state?.status === 'FINALIZING';

export const decideUpload = (command: UploadCommand, state: UploadState): UploadEvent[] =>
  match(command)
    .returnType<UploadEvent[]>()
    .with({ type: 'CreateUpload' }, ({ data: { now, ...d } }) => (state ? [] : [{ type: 'UploadCreated', data: { ...d, timestamp: now } }]))
    .with({ type: 'ReceiveChunk' }, ({ data: { now, maxChunks, sameBytesAs, ...d } }) => {
      const upload = live(state, d.uploadId);
      if (upload.status !== 'ASSEMBLING') throw new UploadAlreadyFinalized(d.uploadId);
      const before = upload.chunks.get(d.offset);
      // an identical re-send records nothing: compared with the chunk recorded there still (not one recorded since)
      if (before && before.blobKey === sameBytesAs && before.length === d.length) return [];
      const refusal = chunkRefusal(upload, d.offset, d.length, maxChunks);
      if (refusal) throw new InvalidChunk(`upload ${d.uploadId}: ${refusal}`);
      const replaced = before ? { replaced: { length: before.length, blobKey: before.blobKey } } : {};
      return [{ type: 'ChunkReceived', data: { ...d, ...replaced, timestamp: now } }];
    })
    .with({ type: 'RequestFinalize' }, ({ data: { now, ...d } }) => {
      const upload = live(state, d.uploadId);
      // once more after UNDERFUNDED: the payer may have been credited since
      if (upload.status !== 'ASSEMBLING' && upload.status !== 'UNDERFUNDED') return [];
      return [{ type: 'UploadFinalizeRequested', data: { ...d, timestamp: now } }];
    })
    .with({ type: 'MarkValidated' }, ({ data: { now, ...d } }) =>
      state?.status === 'VALIDATING' ? [{ type: 'UploadValidated', data: { ...d, timestamp: now } }] : [],
    )
    .with({ type: 'MarkFinalized' }, ({ data: { now, ...d } }) => (finalizing(state) ? [{ type: 'UploadFinalized', data: { ...d, timestamp: now } }] : []))
    .with({ type: 'MarkInvalid' }, ({ data: { now, ...d } }) => (finalizing(state) ? [{ type: 'UploadInvalid', data: { ...d, timestamp: now } }] : []))
    .with({ type: 'MarkUnderfunded' }, ({ data: { now, ...d } }) => (finalizing(state) ? [{ type: 'UploadUnderfunded', data: { ...d, timestamp: now } }] : []))
    // decided on the stream, not the read model the expirer scanned: a chunk or a finalize since then counts
    .with({ type: 'Expire' }, ({ data: { now, lifetimes, ...d } }) =>
      state && pastLifetime({ ...state, owned: ownerKnown(state) }, now, lifetimes) ? [{ type: 'UploadExpired', data: { ...d, timestamp: now } }] : [],
    )
    .exhaustive();
