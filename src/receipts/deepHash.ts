import { createHash } from 'node:crypto';

/**
 * arbundles' `deepHash` (SHA-384) of a flat list of byte strings, synchronous and self-contained so a
 * signing worker can run it without loading arbundles. Same bytes as `deepHash([blob, ...])`:
 *   list: acc = sha384("list" + count); for each blob: acc = sha384(acc ‖ blobHash(blob))
 *   blob: sha384(sha384("blob" + byteLength) ‖ sha384(blob))
 * Nested lists and streams (which data items need) are not handled here.
 */
export function deepHashBlobs(blobs: readonly Uint8Array[]): Buffer {
  let acc = sha384(Buffer.from(`list${blobs.length}`));
  for (const blob of blobs) acc = sha384(acc, blobHash(blob));
  return acc;
}

const blobHash = (blob: Uint8Array): Buffer => sha384(sha384(Buffer.from(`blob${blob.byteLength}`)), sha384(blob));

function sha384(...parts: Uint8Array[]): Buffer {
  const hash = createHash('sha384');
  for (const part of parts) hash.update(part);
  return hash.digest();
}
