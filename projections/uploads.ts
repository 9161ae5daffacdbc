import type { UploadEvent } from '../src/domain/upload/events.js';
import type { Receipt } from '../src/domain/receipt.js';
import type { UploadStatus } from '../src/domain/upload/state.js';
import type { ProjectionDefinition } from './definition.js';

/** Answers the upload view and status routes (CONTRACT.md section 4). */
export interface UploadDocument {
  token: string;
  chunkSize?: number;
  /** [offset, length], ascending by offset, one per offset (a re-sent offset replaces its entry) */
  chunks: [number, number][];
  status: UploadStatus;
  statusChangedAt: number;
  createdAt: number;
  dataItemId?: string;
  receipt?: Receipt;
  /** the item already existed (stored by another upload) when this one was finalized */
  existed?: boolean;
}

const setChunk = (chunks: [number, number][], offset: number, length: number): [number, number][] =>
  [...chunks.filter(([o]) => o !== offset), [offset, length] as [number, number]].sort((a, b) => a[0] - b[0]);

export const uploadsProjection: ProjectionDefinition<UploadDocument, UploadEvent> = {
  name: 'uploads',
  version: 1,
  handles: [
    'UploadCreated',
    'ChunkReceived',
    'UploadFinalizeRequested',
    'UploadValidated',
    'UploadFinalized',
    'UploadInvalid',
    'UploadUnderfunded',
    'UploadExpired',
  ],
  documentIds: (event) => [event.data.uploadId],
  reduce: (doc, event) => {
    if (event.type === 'UploadCreated') {
      const { token, chunkSize, timestamp } = event.data;
      return { token, ...(chunkSize ? { chunkSize } : {}), chunks: [], status: 'ASSEMBLING', statusChangedAt: timestamp, createdAt: timestamp };
    }
    if (!doc) return doc;
    const at = (status: UploadStatus) => ({ ...doc, status, statusChangedAt: event.data.timestamp });
    switch (event.type) {
      case 'ChunkReceived':
        return { ...doc, chunks: setChunk(doc.chunks, event.data.offset, event.data.length) };
      case 'UploadFinalizeRequested':
        return at('VALIDATING');
      case 'UploadValidated':
        return { ...at('FINALIZING'), dataItemId: event.data.dataItemId };
      case 'UploadFinalized':
        return { ...at('FINALIZED'), dataItemId: event.data.dataItemId, receipt: event.data.receipt, ...(event.data.existed ? { existed: true } : {}) };
      case 'UploadInvalid':
        return at('INVALID');
      case 'UploadUnderfunded':
        return at('UNDERFUNDED');
      case 'UploadExpired':
        return at('EXPIRED');
    }
  },
};
