import type { BlobStore } from '../../ports/blobStore.js';
import type { BundleEntry } from './bundleHeader.js';
import { readRange } from './blobRange.js';

/** the largest ANS-104 header (multi-aptos signature and owner, target, anchor, 4 KiB of tags) fits in this */
export const HEAD_BYTES = 8192;

/**
 * Neighbouring heads are read together, up to this span, when the bytes between them that are not
 * needed are few: a read costs about as much as 64 KiB of copying, so a bundle of many small items
 * costs a few reads rather than one per item, while a large item still costs only its first 8 KiB.
 */
const READ_SPAN = 256 * 1024;
const MAX_GAP = 32 * 1024;

/**
 * Each entry's first bytes (up to 8 KiB: its whole header; a smaller item whole), in entry order,
 * from the bundle that starts at `bundleStart` in the blob. One span of this bundle is in memory at a
 * time (a nested bundle read meanwhile holds its own).
 */
export async function* itemHeads(
  blobStore: BlobStore,
  blobKey: string,
  bundleStart: number,
  entries: readonly BundleEntry[],
): AsyncGenerator<{ entry: BundleEntry; head: Uint8Array }> {
  let next = 0;
  while (next < entries.length) {
    const first = entries[next]!;
    let end = headEnd(first);
    let last = next + 1;
    while (last < entries.length && joins(entries[last]!, first.offset, end)) end = headEnd(entries[last++]!);
    const span = await readRange(blobStore, blobKey, bundleStart + first.offset, end - first.offset);
    for (const entry of entries.slice(next, last)) {
      const at = entry.offset - first.offset;
      // only the item's own bytes: a header that runs past them must not be completed by the next item
      yield { entry, head: span.subarray(at, at + Math.min(entry.size, HEAD_BYTES)) };
    }
    next = last;
  }
}

const headEnd = (entry: BundleEntry) => entry.offset + Math.min(entry.size, HEAD_BYTES);
const joins = (entry: BundleEntry, spanStart: number, spanEnd: number) => entry.offset - spanEnd <= MAX_GAP && headEnd(entry) - spanStart <= READ_SPAN;
