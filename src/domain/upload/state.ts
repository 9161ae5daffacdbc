import { match } from 'ts-pattern';
import type { Receipt } from '../receipt.js';
import type { UploadEvent } from './events.js';

export type UploadStatus = 'ASSEMBLING' | 'VALIDATING' | 'FINALIZING' | 'FINALIZED' | 'INVALID' | 'UNDERFUNDED' | 'EXPIRED';

export interface Chunk {
  offset: number;
  length: number;
  sha256: string;
  blobKey: string;
}

export interface Upload {
  uploadId: string;
  token: string;
  chunkSize?: number;
  createdAt: number;
  status: UploadStatus;
  /** time of the last status change */
  statusChangedAt: number;
  chunks: ReadonlyMap<number, Chunk>;
  finalize?: { mode: 'sync' | 'async'; paidBy: string[] };
  dataItemId?: string;
  receipt?: Receipt;
  /** the item had already been stored by another upload when this one was finalized */
  existed?: boolean;
}

export type UploadState = Upload | undefined;

const withStatus = (u: Upload, status: UploadStatus, at: number): Upload => ({ ...u, status, statusChangedAt: at });

export const evolveUpload = (state: UploadState, event: UploadEvent): UploadState => {
  if (event.type === 'UploadCreated') {
    const { uploadId, token, chunkSize, timestamp } = event.data;
    return { uploadId, token, ...(chunkSize ? { chunkSize } : {}), createdAt: timestamp, status: 'ASSEMBLING', statusChangedAt: timestamp, chunks: new Map() };
  }
  if (!state) return state;
  return match(event)
    .returnType<Upload>()
    .with({ type: 'ChunkReceived' }, ({ data }) => ({
      ...state,
      chunks: new Map(state.chunks).set(data.offset, { offset: data.offset, length: data.length, sha256: data.sha256, blobKey: data.blobKey }),
    }))
    .with({ type: 'UploadFinalizeRequested' }, ({ data }) => ({
      ...withStatus(state, 'VALIDATING', data.timestamp),
      finalize: { mode: data.mode, paidBy: data.paidBy },
    }))
    .with({ type: 'UploadValidated' }, ({ data }) => ({ ...withStatus(state, 'FINALIZING', data.timestamp), dataItemId: data.dataItemId }))
    .with({ type: 'UploadFinalized' }, ({ data }) => ({
      ...withStatus(state, 'FINALIZED', data.timestamp),
      dataItemId: data.dataItemId,
      receipt: data.receipt,
      ...(data.existed ? { existed: true } : {}),
    }))
    .with({ type: 'UploadInvalid' }, ({ data }) => withStatus(state, 'INVALID', data.timestamp))
    .with({ type: 'UploadUnderfunded' }, ({ data }) => ({ ...withStatus(state, 'UNDERFUNDED', data.timestamp), dataItemId: data.dataItemId }))
    .with({ type: 'UploadExpired' }, ({ data }) => withStatus(state, 'EXPIRED', data.timestamp))
    .exhaustive();
};

/** The chunks must cover [0, size) exactly: no gap, no overlap. */
export type Tiling = { ok: true; size: number; ordered: Chunk[] } | { ok: false; reason: string };

export function tileChunks(chunks: ReadonlyMap<number, Chunk>): Tiling {
  const ordered = [...chunks.values()].sort((a, b) => a.offset - b.offset);
  if (ordered.length === 0) return { ok: false, reason: 'no chunks' };
  let end = 0;
  for (const c of ordered) {
    // never recorded (the HTTP layer and the event schema refuse them), but an empty chunk would
    // otherwise pass as a tiling of nothing: an upload of zero bytes
    if (!(c.length > 0)) return { ok: false, reason: `empty chunk at ${c.offset}` };
    if (c.offset > end) return { ok: false, reason: `gap at ${end}` };
    if (c.offset < end) return { ok: false, reason: `overlap at ${c.offset}` };
    end = c.offset + c.length;
  }
  return { ok: true, size: end, ordered };
}

/** the byte just past the furthest chunk received */
export const receivedEnd = (u: Upload): number => Math.max(0, ...[...u.chunks.values()].map((c) => c.offset + c.length));
