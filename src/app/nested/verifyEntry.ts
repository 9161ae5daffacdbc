import type { BlobStore } from '../../ports/blobStore.js';
import { InvalidDataItem } from '../../domain/errors.js';
import { createDataItemVerifier } from '../../verify/index.js';

/** A nested item's bytes: `size` bytes of `blobKey` from `start`, of which `head` (in memory) is the first part. */
export interface EntryBytes {
  blobKey: string;
  start: number;
  size: number;
  head: Uint8Array;
}

/**
 * Whether a nested item is what it claims: its bytes streamed through the same verifier as an
 * upload (header, deep hash, signature). Answers undefined when it verifies, else why not. An item
 * wholly in `head` is checked from there; a larger one is read from the blob a chunk at a time, so
 * memory stays at one chunk whatever its size. `pace` is awaited between chunks (see pace.ts).
 * Blob failures reject.
 */
export async function verifyEntry(blobStore: BlobStore, bytes: EntryBytes, pace: () => Promise<void>): Promise<string | undefined> {
  // tags by arbundles' rules, whatever STRICT_TAGS says: the root was accepted and will be bundled with
  // these entries in it, and gateways index them by those rules
  const verifier = createDataItemVerifier({ maxSize: bytes.size });
  try {
    if (bytes.head.length >= bytes.size) {
      verifier.write(bytes.head.subarray(0, bytes.size));
    } else {
      let read = 0;
      for await (const chunk of await blobStore.read(bytes.blobKey, { start: bytes.start, end: bytes.start + bytes.size - 1 })) {
        verifier.write(chunk as Buffer);
        read += (chunk as Buffer).length;
        await pace();
      }
      // the root's size was verified at acceptance: a short blob is damage, not a bad item
      if (read !== bytes.size) throw new Error(`blob ${bytes.blobKey} has ${read} bytes at ${bytes.start}, ${bytes.size} expected`);
    }
    await verifier.end();
    return undefined;
  } catch (error) {
    if (error instanceof InvalidDataItem) return error.message;
    throw error;
  }
}
