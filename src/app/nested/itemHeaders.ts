import type { BlobStore } from '../../ports/blobStore.js';
import type { VerifiedHeader } from '../../verify/index.js';
import { headerOf, MAX_HEADER_BYTES } from '../multipart/headerOf.js';
import type { BundleEntry } from './bundleHeader.js';
import { readRange } from './blobRange.js';

/**
 * Neighbouring headers are read together, up to this span, when the bytes between them that are not
 * needed are few: a read costs about as much as 64 KiB of copying, so a bundle of many small items
 * costs a few reads rather than one per item, while a large item still costs only its first 8 KiB.
 */
const READ_SPAN = 256 * 1024;
const MAX_GAP = 32 * 1024;

/**
 * Each entry's header (undefined when its first bytes are not a valid ANS-104 header), in entry
 * order, from the bundle that starts at `bundleStart` in the blob. One span of this bundle is in memory
 * at a time (a nested bundle read meanwhile holds its own).
 */
export async function* itemHeaders(
  blobStore: BlobStore,
  blobKey: string,
  bundleStart: number,
  entries: readonly BundleEntry[],
): AsyncGenerator<{ entry: BundleEntry; header: VerifiedHeader | undefined }> {
  let next = 0;
  while (next < entries.length) {
    const first = entries[next]!;
    let end = headerEnd(first);
    let last = next + 1;
    while (last < entries.length && joins(entries[last]!, first.offset, end)) end = headerEnd(entries[last++]!);
    const span = await readRange(blobStore, blobKey, bundleStart + first.offset, end - first.offset);
    for (const entry of entries.slice(next, last)) {
      const at = entry.offset - first.offset;
      // only the item's own bytes: a header that runs past them must not be completed by the next item
      yield { entry, header: headerOf(span.subarray(at, at + Math.min(entry.size, MAX_HEADER_BYTES))) };
    }
    next = last;
  }
}

const headerEnd = (entry: BundleEntry) => entry.offset + Math.min(entry.size, MAX_HEADER_BYTES);
const joins = (entry: BundleEntry, spanStart: number, spanEnd: number) =>
  entry.offset - spanEnd <= MAX_GAP && headerEnd(entry) - spanStart <= READ_SPAN;
