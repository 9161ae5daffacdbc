import { DataItemId, dataItemStream, ITEM_BLOB_PREFIX } from '../domain/ids.js';
import { fromRecorded } from '../domain/events.js';
import { isUploadEvent } from '../domain/upload/events.js';
import { UploadId, uploadStream } from '../domain/upload/ids.js';
import { evolveUpload, type UploadState, type UploadStatus } from '../domain/upload/state.js';
import type { BlobStore, ListedBlob } from '../ports/blobStore.js';
import type { EventStore, RecordedEvent } from '../ports/eventStore.js';

/**
 * Which blobs an event owns: the one notion the audit's `blob-orphan` check and the orphan sweep
 * share, so that what the sweep removes is what the audit names. An `items/<id>` blob is owned by its
 * item's `DataItemAccepted` until its `ItemBytesRetired` (the retention pass deletes it right after
 * that event; one still there is a deletion a crash cut); an `uploads/<uploadId>/...` blob by its upload until the upload is at an
 * end. Anything else under those prefixes is a key the service never writes.
 */

/** the prefixes whose every blob an event owns (the rest of the store is not judged) */
export const OWNED_PREFIXES = ['items', 'uploads'] as const;

/** the ends of a multi-part upload, after which its bytes are deleted (an underfunded one may be finalized again) */
const ENDED: readonly UploadStatus[] = ['FINALIZED', 'INVALID', 'EXPIRED'];

/** A blob no event owns: `id` is the item or upload it was written for (the key when it names none). */
export interface OrphanBlob extends Orphan {
  blob: ListedBlob;
}

export interface Orphan {
  id: string;
  /** why no event owns it, in a few words */
  reason: string;
  /** a key this version never writes (a newer one might): named, never removed by the service */
  foreign?: true;
}

export type OwnerReads = Pick<EventStore, 'readStream'>;

/**
 * Why no event owns the blob `key`, or undefined when one does. Reads the streams as they are now, so
 * an acceptance appended a moment ago counts. `uploads` caches the state of the last upload read
 * (its blobs are listed together: one directory, or one run of keys).
 */
export async function whyOrphan(eventStore: OwnerReads, key: string, uploads: UploadCache = {}): Promise<Orphan | undefined> {
  if (key.startsWith(ITEM_BLOB_PREFIX)) {
    const id = DataItemId.safeParse(key.slice(ITEM_BLOB_PREFIX.length));
    if (!id.success) return { id: key, reason: 'not a key the service writes', foreign: true };
    const owner = await itemOwner(eventStore, id.data);
    if (owner === 'accepted') return undefined;
    return {
      id: id.data,
      reason: owner === 'retired' ? 'the item was retired (ItemBytesRetired), its bytes should be gone' : 'the item has no DataItemAccepted',
    };
  }
  const uploadId = UploadId.safeParse(key.split('/')[1]);
  if (!key.startsWith('uploads/') || !uploadId.success) return { id: key, reason: 'not a key the service writes', foreign: true };
  if (uploads.last?.uploadId !== uploadId.data) uploads.last = { uploadId: uploadId.data, state: await uploadState(eventStore, uploadId.data) };
  const { state } = uploads.last;
  // an event this service cannot read (of a newer version, or damaged) leaves the upload's end unknown
  if (state === 'unreadable') return undefined;
  if (state === undefined) return { id: uploadId.data, reason: 'the upload has no events' };
  if (ENDED.includes(state.status)) return { id: uploadId.data, reason: `the upload is ${state.status}, its bytes should be gone` };
  return undefined;
}

export interface UploadCache {
  last?: { uploadId: string; state: UploadState | 'unreadable' };
}

/**
 * The blobs under OWNED_PREFIXES that no event owns, among those `judged` lets through (a blob
 * changed recently may be in flight: its event not appended yet, or its deletion under way). Walks
 * the store's listing, reading the stream of each blob it judges, so memory stays flat however many
 * blobs there are.
 */
export async function* orphanBlobs(
  deps: { eventStore: OwnerReads; blobStore: Pick<BlobStore, 'list'> },
  judged: (blob: ListedBlob) => boolean,
): AsyncGenerator<OrphanBlob> {
  for (const prefix of OWNED_PREFIXES) {
    const uploads: UploadCache = {};
    for await (const blob of deps.blobStore.list(prefix)) {
      if (!judged(blob)) continue;
      const orphan = await whyOrphan(deps.eventStore, blob.key, uploads);
      if (orphan) yield { blob, ...orphan };
    }
  }
}

/** `DataItemAccepted` creates the item's stream (its first event); `ItemBytesRetired` gives its blob up */
async function itemOwner(eventStore: OwnerReads, id: DataItemId): Promise<'accepted' | 'retired' | 'none'> {
  let first = true;
  for await (const recorded of eventStore.readStream(dataItemStream(id))) {
    if (first && recorded.type !== 'DataItemAccepted') return 'none';
    first = false;
    if (recorded.type === 'ItemBytesRetired') return 'retired';
  }
  return first ? 'none' : 'accepted';
}

/** an upload's state from its stream; 'unreadable' when an event of it does not parse as an upload event */
async function uploadState(eventStore: OwnerReads, uploadId: string): Promise<UploadState | 'unreadable'> {
  let state: UploadState;
  for await (const recorded of eventStore.readStream(uploadStream(uploadId))) {
    const event = parsed(recorded);
    if (!event || !isUploadEvent(event)) return 'unreadable';
    state = evolveUpload(state, event);
  }
  return state;
}

function parsed(recorded: RecordedEvent) {
  try {
    return fromRecorded(recorded);
  } catch {
    return undefined;
  }
}
