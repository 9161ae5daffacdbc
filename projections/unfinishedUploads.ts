import type { UploadEvent } from '../src/domain/upload/events.js';
import type { UploadStatus } from '../src/domain/upload/state.js';
import { clientKeyOf } from '../src/domain/clientKey.js';
import { headerChunkNamesOwner } from '../src/domain/upload/state.js';
import type { ProjectionDefinition } from './definition.js';

/**
 * Uploads not yet at an end (finalized, invalid, expired): the finalizer resumes those being
 * finalized after a restart, the expirer ends those left too long, and the upload tally starts from
 * what each client holds. Version 2 adds the client, the bytes held and whether the owner is known.
 */
export interface UnfinishedUpload {
  status: UploadStatus;
  createdAt: number;
  /** the client that created it (its address as counted by the limits: an IPv4 address or an IPv6 /64) */
  client: string;
  /** bytes of the chunks recorded now */
  bytes: number;
  /** a header chunk named the owner (absent: nobody is known to pay for it yet) */
  owned?: true;
  /** the last chunk recorded, or the creation */
  activeAt: number;
}

export const unfinishedUploadsProjection: ProjectionDefinition<UnfinishedUpload, UploadEvent> = {
  name: 'unfinished-uploads',
  version: 2,
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
  reduce: (doc, event, { recorded }) => {
    if (event.type === 'UploadCreated') {
      const at = event.data.timestamp;
      return { status: 'ASSEMBLING', createdAt: at, client: clientKeyOf(recorded.metadata.clientAddress), bytes: 0, activeAt: at };
    }
    if (!doc) return doc;
    switch (event.type) {
      case 'ChunkReceived': {
        const { offset, length, replaced, timestamp } = event.data;
        const { owned: _owned, ...rest } = doc;
        const owned = offset === 0 ? headerChunkNamesOwner(event.data) : doc.owned === true;
        return { ...rest, bytes: doc.bytes + length - (replaced?.length ?? 0), activeAt: timestamp, ...(owned ? { owned: true as const } : {}) };
      }
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
