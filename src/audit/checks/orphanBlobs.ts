import { DataItemId, dataItemStream, ITEM_BLOB_PREFIX } from '../../domain/ids.js';
import { isUploadEvent } from '../../domain/upload/events.js';
import { UploadId, uploadStream } from '../../domain/upload/ids.js';
import { evolveUpload, type UploadState, type UploadStatus } from '../../domain/upload/state.js';
import type { BlobStore, ListedBlob } from '../../ports/blobStore.js';
import type { EventStore } from '../../ports/eventStore.js';
import { parseRecorded } from '../parse.js';
import type { AuditSink } from '../types.js';

export interface OrphanBlobsDeps {
  eventStore: Pick<EventStore, 'readStream'>;
  blobStore: Pick<BlobStore, 'list'>;
  /**
   * Blobs changed more recently than this are not judged: a running service may be writing them
   * right now (an item's bytes are committed just before its acceptance is appended; an upload's
   * bytes are deleted just after its end is recorded).
   */
  graceMs: number;
  now: number;
}

/** the ends of a multi-part upload, after which its bytes are deleted (an underfunded one may be finalized again) */
const ENDED: readonly UploadStatus[] = ['FINALIZED', 'INVALID', 'EXPIRED'];

/**
 * Bytes no event speaks of: an `items/<id>` blob whose item stream has no `DataItemAccepted` (an
 * acceptance that failed and kept its bytes), and an `uploads/<uploadId>/...` blob of an upload at an
 * end or unknown (its deletion was cut short). Walks the blob store's listing, reading the stream of
 * each blob it judges, so memory stays flat however many blobs there are; the streams are read as
 * they are now, so an acceptance appended since the audit started counts.
 */
export async function checkOrphanBlobs(deps: OrphanBlobsDeps, sink: AuditSink): Promise<void> {
  const judged = (blob: ListedBlob) => {
    sink.count('blobsListed');
    if (deps.now - blob.modifiedAt >= deps.graceMs) return true;
    sink.count('blobsNotJudged');
    return false;
  };
  const since = (blob: ListedBlob) => `${blob.size} bytes, last changed ${new Date(blob.modifiedAt).toISOString()}`;

  for await (const blob of deps.blobStore.list('items')) {
    if (!judged(blob)) continue;
    const id = DataItemId.safeParse(blob.key.slice(ITEM_BLOB_PREFIX.length));
    if (!id.success) {
      sink.finding({ kind: 'blob-orphan', id: blob.key, detail: `${blob.key}: not a key the service writes (${since(blob)})` });
    } else if (!(await isAccepted(deps.eventStore, id.data))) {
      sink.finding({ kind: 'blob-orphan', id: id.data, detail: `${blob.key}: the item has no DataItemAccepted (${since(blob)})` });
    }
  }

  // an upload's blobs are listed together (one directory, or one run of keys): its state is read once
  let last: { uploadId: string; state: UploadState } | undefined;
  for await (const blob of deps.blobStore.list('uploads')) {
    if (!judged(blob)) continue;
    const uploadId = UploadId.safeParse(blob.key.split('/')[1]);
    if (!uploadId.success) {
      sink.finding({ kind: 'blob-orphan', id: blob.key, detail: `${blob.key}: not a key the service writes (${since(blob)})` });
      continue;
    }
    if (last?.uploadId !== uploadId.data) last = { uploadId: uploadId.data, state: await uploadState(deps.eventStore, uploadId.data) };
    const { state } = last;
    if (state === undefined) {
      sink.finding({ kind: 'blob-orphan', id: uploadId.data, detail: `${blob.key}: the upload has no events (${since(blob)})` });
    } else if (ENDED.includes(state.status)) {
      sink.finding({ kind: 'blob-orphan', id: uploadId.data, detail: `${blob.key}: the upload is ${state.status}, its bytes should be gone (${since(blob)})` });
    }
  }
}

/** `DataItemAccepted` creates the item's stream: it is its first event */
async function isAccepted(eventStore: OrphanBlobsDeps['eventStore'], id: DataItemId): Promise<boolean> {
  for await (const recorded of eventStore.readStream(dataItemStream(id), { maxCount: 1 })) return recorded.type === 'DataItemAccepted';
  return false;
}

async function uploadState(eventStore: OrphanBlobsDeps['eventStore'], uploadId: string): Promise<UploadState> {
  let state: UploadState;
  for await (const recorded of eventStore.readStream(uploadStream(uploadId))) {
    const { event } = parseRecorded(recorded);
    if (event && isUploadEvent(event)) state = evolveUpload(state, event);
  }
  return state;
}
