import { createHash } from 'node:crypto';
import type { BlobStore, BlobWriter } from '../ports/blobStore.js';
import { createDataItemVerifier, type VerifiedDataItem, type VerifiedHeader } from '../verify/index.js';

export interface ReceivedDataItem {
  verified: VerifiedDataItem;
  /** hex sha256 of the raw bytes */
  sha256: string;
  /** temporary blob holding the bytes; the caller commits or aborts it */
  writer: BlobWriter;
}

/**
 * Streams an item's bytes once: into a temporary blob, through the verifier and the digest, so
 * memory stays bounded by one chunk whatever the size. On any failure nothing is left behind.
 */
export async function receiveDataItem(
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  deps: {
    blobStore: BlobStore;
    maxSize: number;
    /** called once, as soon as the header is parsed: a chance to refuse before the payload arrives */
    onHeader?: (header: VerifiedHeader) => Promise<void>;
  },
): Promise<ReceivedDataItem> {
  const verifier = createDataItemVerifier({ maxSize: deps.maxSize });
  const digest = createHash('sha256');
  const writer = await deps.blobStore.createWriter();
  try {
    let headerSeen = false;
    for await (const chunk of source) {
      verifier.write(chunk);
      digest.update(chunk);
      await writer.write(chunk);
      if (!headerSeen && verifier.header) {
        headerSeen = true;
        await deps.onHeader?.(verifier.header);
      }
    }
    const verified = await verifier.end();
    return { verified, sha256: digest.digest('hex'), writer };
  } catch (error) {
    await writer.abort();
    throw error;
  }
}
