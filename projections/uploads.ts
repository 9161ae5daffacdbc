import type { UploadApprovals, UploadEvent } from '../src/domain/upload/events.js';
import type { Receipt } from '../src/domain/receipt.js';
import type { UploadStatus } from '../src/domain/upload/state.js';
import type { ProjectionDefinition } from './definition.js';

/**
 * Answers the upload view and status routes (CONTRACT.md section 4), with the chunks from
 * `upload-chunks`. Version 2: the chunks left this document, which every chunk rewrote whole (a cost
 * growing with the chunks an upload held).
 */
export interface UploadDocument {
  token: string;
  chunkSize?: number;
  status: UploadStatus;
  statusChangedAt: number;
  createdAt: number;
  dataItemId?: string;
  receipt?: Receipt;
  /** the item already existed (stored by another upload) when this one was finalized */
  existed?: boolean;
  /** what the item's credit-sharing tags changed, as answered at finalization: the status shows it beside the receipt */
  approvals?: UploadApprovals;
}

export const uploadsProjection: ProjectionDefinition<UploadDocument, UploadEvent> = {
  name: 'uploads',
  version: 2,
  handles: ['UploadCreated', 'UploadFinalizeRequested', 'UploadValidated', 'UploadFinalized', 'UploadInvalid', 'UploadUnderfunded', 'UploadExpired'],
  documentIds: (event) => [event.data.uploadId],
  reduce: (doc, event) => {
    if (event.type === 'UploadCreated') {
      const { token, chunkSize, timestamp } = event.data;
      return { token, ...(chunkSize ? { chunkSize } : {}), status: 'ASSEMBLING', statusChangedAt: timestamp, createdAt: timestamp };
    }
    if (!doc) return doc;
    const at = (status: UploadStatus) => ({ ...doc, status, statusChangedAt: event.data.timestamp });
    switch (event.type) {
      case 'ChunkReceived':
        return doc;
      case 'UploadFinalizeRequested':
        return at('VALIDATING');
      case 'UploadValidated':
        return { ...at('FINALIZING'), dataItemId: event.data.dataItemId };
      case 'UploadFinalized':
        return {
          ...at('FINALIZED'),
          dataItemId: event.data.dataItemId,
          receipt: event.data.receipt,
          ...(event.data.existed ? { existed: true } : {}),
          ...(event.data.approvals ? { approvals: event.data.approvals } : {}),
        };
      case 'UploadInvalid':
        return at('INVALID');
      case 'UploadUnderfunded':
        return at('UNDERFUNDED');
      case 'UploadExpired':
        return at('EXPIRED');
    }
  },
};
