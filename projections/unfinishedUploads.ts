import type { UploadEvent } from '../src/domain/upload/events.js';
import type { UploadStatus } from '../src/domain/upload/state.js';
import type { ProjectionDefinition } from './definition.js';

/**
 * Uploads not yet at an end (finalized, invalid, expired): the finalizer resumes those being
 * finalized after a restart, and the expirer ends those left too long.
 */
export interface UnfinishedUpload {
  status: UploadStatus;
  createdAt: number;
}

export const unfinishedUploadsProjection: ProjectionDefinition<UnfinishedUpload, UploadEvent> = {
  name: 'unfinished-uploads',
  version: 1,
  handles: ['UploadCreated', 'UploadFinalizeRequested', 'UploadValidated', 'UploadFinalized', 'UploadInvalid', 'UploadUnderfunded', 'UploadExpired'],
  documentIds: (event) => [event.data.uploadId],
  reduce: (doc, event) => {
    if (event.type === 'UploadCreated') return { status: 'ASSEMBLING', createdAt: event.data.timestamp };
    if (!doc) return doc;
    switch (event.type) {
      case 'UploadFinalizeRequested':
        return { ...doc, status: 'VALIDATING' };
      case 'UploadValidated':
        return { ...doc, status: 'FINALIZING' };
      case 'UploadUnderfunded':
        return { ...doc, status: 'UNDERFUNDED' };
      default:
        return undefined;
    }
  },
};
