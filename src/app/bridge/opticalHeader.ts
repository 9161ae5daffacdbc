import type { BlobStore } from '../../ports/blobStore.js';
import { headerOf, MAX_HEADER_BYTES, type VerifiedHeader } from '../../verify/index.js';
import { readRange } from '../nested/blobRange.js';

/** `length` bytes from `start`: one positioned read where the store offers it (no stream set up per item) */
async function headerBytes(blobStore: BlobStore, key: string, start: number, length: number): Promise<Buffer> {
  if (!blobStore.open) return readRange(blobStore, key, start, length);
  const blob = await blobStore.open(key);
  try {
    const bytes = Buffer.alloc(length);
    let read = 0;
    while (read < length) {
      const n = await blob.read(bytes.subarray(read), start + read);
      if (n === 0) break;
      read += n;
    }
    return bytes.subarray(0, read);
  } finally {
    await blob.close();
  }
}

/**
 * One item's signed header as ar-io-node's `POST /ar-io/admin/queue-data-item` takes it
 * (`QueueDataItemHeaders`, src/routes/ar-io.ts of ar-io/ar-io-node at dec86f8), fields as the
 * reference bundler fills them (ardriveapp/turbo-upload-service src/routes/dataItemPost.ts and
 * src/utils/opticalUtils.ts at c660dd8): binary fields base64url, tags' names and values base64url
 * of their bytes (`encodeTagsForOptical`), `owner_address` base64url(sha256(owner)) for every
 * signature type (`ownerToNormalizedB64Address`), target and anchor '' when absent. The reference's
 * own `bundlr_signature` is left out: the gateway reads no such field.
 */
export interface OpticalHeader {
  id: string;
  signature: string;
  owner: string;
  owner_address: string;
  target: string;
  anchor: string;
  content_type: string;
  data_size: number;
  tags: { name: string; value: string }[];
}

const b64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

/** `header` as the gateway takes it; `dataSize` is the payload's length */
export const opticalHeaderOf = (header: VerifiedHeader, dataSize: number): OpticalHeader => ({
  id: header.id,
  signature: header.signature,
  owner: header.ownerPublicKey,
  owner_address: header.owner,
  target: header.target ?? '',
  anchor: header.anchor ?? '',
  content_type: header.contentType,
  data_size: dataSize,
  // the service keeps only tags that are valid UTF-8 (src/verify/tags.ts): their bytes come back exactly
  tags: header.tags.map((t) => ({ name: b64url(t.name), value: b64url(t.value) })),
});

/** where an item's bytes sit: its own blob, or its root item's blob at an offset (a nested item) */
export interface ItemPlace {
  id: string;
  blobKey: string;
  /** offset of the item's first byte in the blob */
  start: number;
  rawContentLength: number;
  payloadDataStart: number;
}

/**
 * The header of the item at `place`, read from the blob store: its header bytes only (at most 8 KiB),
 * never the payload. Throws when the bytes there are not the item's header (a blob lost or damaged).
 */
export async function readOpticalHeader(blobStore: BlobStore, place: ItemPlace): Promise<OpticalHeader> {
  const bytes = await headerBytes(blobStore, place.blobKey, place.start, Math.min(place.rawContentLength, MAX_HEADER_BYTES));
  const header = headerOf(bytes);
  if (!header || header.id !== place.id || header.payloadDataStart !== place.payloadDataStart) {
    throw new Error(`the bytes at ${place.blobKey}@${place.start} are not the header of ${place.id}`);
  }
  return opticalHeaderOf(header, place.rawContentLength - place.payloadDataStart);
}
