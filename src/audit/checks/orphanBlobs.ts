import { orphanBlobs } from '../../app/orphanBlobs.js';
import type { BlobStore, ListedBlob } from '../../ports/blobStore.js';
import type { EventStore } from '../../ports/eventStore.js';
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

/**
 * Bytes no event speaks of (what owns a blob: src/app/orphanBlobs.ts, which the service's orphan
 * sweep removes by): an `items/<id>` blob whose item stream has no `DataItemAccepted` (an acceptance
 * that failed and kept its bytes), and an `uploads/<uploadId>/...` blob of an upload at an end or
 * unknown (its deletion was cut short). The streams are read as they are now, so an acceptance
 * appended since the audit started counts.
 */
export async function checkOrphanBlobs(deps: OrphanBlobsDeps, sink: AuditSink): Promise<void> {
  const judged = (blob: ListedBlob) => {
    sink.count('blobsListed');
    if (deps.now - blob.modifiedAt >= deps.graceMs) return true;
    sink.count('blobsNotJudged');
    return false;
  };
  const since = (blob: ListedBlob) => `${blob.size} bytes, last changed ${new Date(blob.modifiedAt).toISOString()}`;
  for await (const { blob, id, reason } of orphanBlobs(deps, judged)) {
    sink.finding({ kind: 'blob-orphan', id, detail: `${blob.key}: ${reason} (${since(blob)})` });
  }
}
