import { BufferPool } from '../../bufferPool.js';
import { ServiceUnavailable } from '../../domain/errors.js';
import type { BlobSlice, BlobStore } from '../../ports/blobStore.js';
import type { DiskSpace } from '../../adapters/fs/diskSpace.js';
import { legacyUploadDataKey } from '../../domain/upload/ids.js';
import type { Chunk } from '../../domain/upload/state.js';
import type { BlobHasher } from '../../crypto/blobHasher.js';
import {
  newBlobCommit,
  receiveDataItem,
  storedDataItem,
  verifyBytes,
  verifyStoredDataItem,
  type ReceivedDataItem,
  type VerifiedBytes,
} from '../acceptance/receiveDataItem.js';
import type { PrefixVerifier } from './prefixVerifier.js';

export interface AssembleDeps {
  blobStore: BlobStore;
  maxDataItemSize: number;
  /** STRICT_TAGS (src/verify/tags.ts) */
  strictTags?: boolean;
  disk?: DiskSpace;
  observeVerify?: (seconds: number) => void;
  /** seconds finishing a verification done as the chunks came in took */
  observePrefix?: (seconds: number) => void;
  hasher?: BlobHasher;
  /** what was verified of the upload's chunks as they came in (stores that compose) */
  prefix?: PrefixVerifier;
}

/** where a chunk's bytes are: its own blob from 0, or the one blob of an earlier version's upload at its offset */
const sourceOf = (uploadId: string, chunk: Chunk): BlobSlice => ({
  key: chunk.blobKey,
  start: chunk.blobKey === legacyUploadDataKey(uploadId) ? chunk.offset : 0,
  length: chunk.length,
});

/**
 * The item of an upload whose recorded chunks tile it (`ordered`, `size` bytes), verified and ready to
 * be committed under its key. The recorded chunk blobs are never written again, so what is verified is
 * what is kept:
 * - one blob holding the whole item from byte 0 (a single chunk; an earlier version's upload) is
 *   verified where it is and moved, never copied;
 * - several chunks of their own blobs, in a store that composes (files), are read once, in order,
 *   through the verifier, writing nothing, and the item's blob is composed of them: their bytes are
 *   kept under the item's key too, never copied (see `composeUpload`);
 * - else they are streamed once, in order, through the verifier into a new blob (the disk must have
 *   room for the copy above its floor, else 503), and the chunks stay until the upload ends.
 * In the first two cases the chunks verified as they came in (`prefix`) are not read again.
 */
export async function assembleUpload(deps: AssembleDeps, uploadId: string, ordered: readonly Chunk[], size: number): Promise<ReceivedDataItem> {
  const sources = ordered.map((chunk) => sourceOf(uploadId, chunk));
  const first = sources[0]!;
  const inPlace = first.start === 0 && sources.every((s) => s.key === first.key) && contiguous(sources);
  if (inPlace) {
    const followed = await takeFollowed(deps, uploadId, ordered);
    if (followed) return storedDataItem(deps.blobStore, first.key, size, followed);
    return verifyStoredDataItem(deps.blobStore, first.key, size, itemRules(deps), deps.observeVerify, deps.hasher);
  }
  // an earlier version's upload blob was written with writeAt: only blobs nobody writes again are composed
  if (deps.blobStore.compose && sources.every((s) => s.key !== legacyUploadDataKey(uploadId))) {
    const followed = await takeFollowed(deps, uploadId, ordered);
    const read = () => (deps.blobStore.open ? readInto(deps.blobStore.open.bind(deps.blobStore), sources, chunkReads) : bytesOf(deps.blobStore, sources));
    return composeUpload(deps, sources, followed ?? (await verifyBytes(read(), itemRules(deps), deps.observeVerify, deps.hasher)));
  }
  deps.prefix?.forget(uploadId);

  const { disk } = deps;
  if (disk && !disk.tryTake(size)) throw new ServiceUnavailable(`assembling upload ${uploadId}: ${size} bytes would take the disk below its floor`);
  let given = false;
  const giveBack = () => {
    if (!given && disk) disk.give(size);
    given = true;
  };
  const started = process.hrtime.bigint();
  try {
    const received = await receiveDataItem(bytesOf(deps.blobStore, sources), {
      blobStore: deps.blobStore,
      ...itemRules(deps),
      ...(deps.hasher ? { hasher: deps.hasher } : {}),
    });
    deps.observeVerify?.(Number(process.hrtime.bigint() - started) / 1e9);
    return {
      ...received,
      commit: (key) => received.commit(key).finally(giveBack),
      discard: () => received.discard().finally(giveBack),
    };
  } catch (error) {
    giveBack();
    throw error;
  }
}

/**
 * Verifies the chunks where they are and, on commit, composes the item's blob of them. Nothing is
 * written but the composed blob's links and manifest, so the disk gives no space for it. After a
 * crash between the commit and the acceptance the chunks are still there (they go when the upload
 * ends), so a resumed finalize verifies and composes them again.
 */
function composeUpload(deps: AssembleDeps, sources: readonly BlobSlice[], { verified, sha256 }: VerifiedBytes): ReceivedDataItem {
  const { blobStore } = deps;
  const compose = blobStore.compose!.bind(blobStore);
  return {
    verified,
    sha256,
    // discarding: the chunks keep the bytes, for the upload (a refused finalize, underfunded, may be asked again)
    ...newBlobCommit(
      blobStore,
      (key) => compose(key, sources),
      async () => {},
    ),
  };
}

/**
 * The verification of the upload's chunks done as they came in, finished with the chunks it did not
 * cover (`observePrefix` times that rest: what finalize waited for); undefined when none was usable.
 */
async function takeFollowed(deps: AssembleDeps, uploadId: string, ordered: readonly Chunk[]) {
  const started = process.hrtime.bigint();
  const followed = await deps.prefix?.take(uploadId, ordered);
  if (followed) deps.observePrefix?.(Number(process.hrtime.bigint() - started) / 1e9);
  return followed;
}

/** what an assembled item must be: at most MAX_DATA_ITEM_SIZE, its tags under this service's rules */
export const itemRules = (deps: Pick<AssembleDeps, 'maxDataItemSize' | 'strictTags'>) => ({
  maxSize: deps.maxDataItemSize,
  ...(deps.strictTags ? { strictTags: true } : {}),
});

/** one blob, the chunks back to back from its byte 0 */
const contiguous = (sources: readonly BlobSlice[]) => sources.every((s, i) => i === 0 || s.start === sources[i - 1]!.start + sources[i - 1]!.length);

/** what the chunks not verified as they came in are read into at finalize, a buffer per finalize */
const chunkReads = new BufferPool(1024 * 1024, 2);

/**
 * The chunks' bytes read into one buffer of `pool`, yielded again and again: for a consumer done with
 * each piece when it asks for the next (`verifyBytes`: the verifier and the blob digest copy what they
 * keep), not for one that holds pieces (a writer). A stream's fresh MiB per read would be a GiB of
 * memory outside the heap for a GiB upload, which V8 answers with full collections.
 */
export async function* readInto(open: NonNullable<BlobStore['open']>, sources: readonly BlobSlice[], pool: BufferPool): AsyncGenerator<Uint8Array> {
  const buffer = pool.take();
  try {
    for (const { key, start, length } of sources) {
      const blob = await open(key);
      try {
        for (let at = 0; at < length;) {
          const read = await blob.read(buffer.subarray(0, Math.min(buffer.byteLength, length - at)), start + at);
          // a short read would make every later offset wrong
          if (read === 0) throw new Error(`chunk blob ${key} gave ${at} of ${length} bytes`);
          yield buffer.subarray(0, read);
          at += read;
        }
      } finally {
        await blob.close();
      }
    }
  } finally {
    pool.give(buffer);
  }
}

/** the chunks' bytes as the store streams them: fresh buffers, for a consumer that may hold them */
async function* bytesOf(blobStore: BlobStore, sources: readonly BlobSlice[]): AsyncGenerator<Uint8Array> {
  for (const { key, start, length } of sources) {
    let read = 0;
    for await (const chunk of await blobStore.read(key, { start, end: start + length - 1 })) {
      read += (chunk as Uint8Array).byteLength;
      yield chunk as Uint8Array;
    }
    // the store checks ranges against the blob's size; a short read would make every later offset wrong
    if (read !== length) throw new Error(`chunk blob ${key} gave ${read} of ${length} bytes`);
  }
}
