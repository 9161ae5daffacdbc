import type { BlobStore } from '../ports/blobStore.js';
import { BundleBlobMismatch } from './errors.js';
import { bundleHeader, headerRange } from './header.js';
import { bundleLayout, type BundleEntry, type BundleLayout, type PlacedEntry } from './layout.js';
import { bestEffort } from '../bestEffort.js';

/**
 * A bundle's data, streamed from the blob store: never more than one read chunk of one blob in
 * memory, whatever the bundle's size.
 */

export interface BlobEntry extends BundleEntry {
  /** where the raw item's bytes are in the blob store */
  blobKey: string;
}

/**
 * The whole bundle: header, then every item's blob in order. Each blob must hold exactly the
 * declared size; a blob that differs fails the stream (BundleBlobMismatch) before a wrong byte
 * is yielded, since every offset after it would be wrong.
 */
export async function* bundleBytes(blobStore: BlobStore, entries: readonly BlobEntry[]): AsyncGenerator<Uint8Array> {
  bundleLayout(entries); // checks ids and sizes before any byte goes out
  yield bundleHeader(entries);
  for (const { blobKey, size } of entries) {
    let read = 0;
    // breaking out of for-await destroys the read stream, so an abandoned bundle leaves no open file
    for await (const chunk of await blobStore.read(blobKey)) {
      const bytes = chunk as Uint8Array;
      read += bytes.byteLength;
      if (read > size) throw new BundleBlobMismatch(blobKey, size, read);
      yield bytes;
    }
    if (read !== size) throw new BundleBlobMismatch(blobKey, size, read);
  }
}

/**
 * Bytes `[start, end)` of the bundle, reading only the parts of the blobs that fall in the range
 * (a 256 KiB chunk can span the header and many small items). Blobs longer than declared go
 * unnoticed here; `bundleBytes`, which computed the data root, has already checked every length.
 */
export async function* bundleRange(blobStore: BlobStore, layout: BundleLayout<BlobEntry>, start: number, end: number): AsyncGenerator<Uint8Array> {
  if (!(Number.isSafeInteger(start) && Number.isSafeInteger(end) && 0 <= start && start <= end && end <= layout.totalSize)) {
    throw new RangeError(`range [${start}, ${end}) is outside the bundle's [0, ${layout.totalSize})`);
  }
  if (start < layout.headerSize) {
    yield headerRange(layout.items, start, Math.min(end, layout.headerSize));
  }
  for (let i = firstItemEndingAfter(layout.items, start); i < layout.items.length; i++) {
    const item = layout.items[i] as PlacedEntry<BlobEntry>;
    if (item.offset >= end) break;
    const from = Math.max(start, item.offset) - item.offset;
    const to = Math.min(end, item.offset + item.size) - item.offset;
    let read = 0;
    // the port's ranges are inclusive of their last byte
    for await (const chunk of await readRange(blobStore, item, from, to - 1)) {
      const bytes = chunk as Uint8Array;
      read += bytes.byteLength;
      if (read > to - from) throw new Error(`blob store returned more than range ${from}-${to - 1} of ${item.blobKey}`);
      yield bytes;
    }
    if (read !== to - from) throw new BundleBlobMismatch(item.blobKey, item.size, from + read);
  }
}

/** A read the store refuses (a range past the blob's end) is reported as the size mismatch it is. */
async function readRange(blobStore: BlobStore, item: PlacedEntry<BlobEntry>, start: number, end: number): Promise<AsyncIterable<unknown>> {
  try {
    return await blobStore.read(item.blobKey, { start, end });
  } catch (error) {
    const actual = await bestEffort(blobStore.stat(item.blobKey), 'the read failure is the one reported');
    if (actual !== undefined && actual.size !== item.size) throw new BundleBlobMismatch(item.blobKey, item.size, actual.size);
    throw error;
  }
}

/** binary search: the first item whose bytes end after `position` (items are in offset order) */
function firstItemEndingAfter(items: readonly PlacedEntry<BundleEntry>[], position: number): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    const item = items[mid] as PlacedEntry<BundleEntry>;
    if (item.offset + item.size <= position) low = mid + 1;
    else high = mid;
  }
  return low;
}
