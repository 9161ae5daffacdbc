import type { BlobSlice, BlobStore } from '../../ports/blobStore.js';

/**
 * Whether two slices of blobs hold the same bytes, read side by side (the store's pieces, compared
 * as they come; nothing held beyond a piece of each). For a chunk sent again at an offset where one
 * of the same length is recorded: a client's retry of the same bytes records nothing. Read only
 * then, so a chunk that is no re-send is never read back for it and never hashed on its own.
 */
export async function sameBytes(blobStore: Pick<BlobStore, 'read'>, a: BlobSlice, b: BlobSlice): Promise<boolean> {
  if (a.length !== b.length) return false;
  if (a.length === 0) return true;
  const pieces = async (slice: BlobSlice) =>
    (await blobStore.read(slice.key, { start: slice.start, end: slice.start + slice.length - 1 }))[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>;
  const left = await pieces(a);
  const right = await pieces(b);
  try {
    let l: Uint8Array = new Uint8Array(0);
    let r: Uint8Array = new Uint8Array(0);
    for (let compared = 0; compared < a.length;) {
      if (l.byteLength === 0) l = await nextPiece(left, a);
      if (r.byteLength === 0) r = await nextPiece(right, b);
      const n = Math.min(l.byteLength, r.byteLength);
      if (Buffer.compare(l.subarray(0, n), r.subarray(0, n)) !== 0) return false;
      l = l.subarray(n);
      r = r.subarray(n);
      compared += n;
    }
    return true;
  } finally {
    await left.return?.();
    await right.return?.();
  }
}

async function nextPiece(pieces: AsyncIterator<Uint8Array>, slice: BlobSlice): Promise<Uint8Array> {
  const next = await pieces.next();
  // the store checks a range against the blob's size: a short read is a blob that changed under us
  if (next.done) throw new Error(`blob ${slice.key} ended before ${slice.length} bytes from ${slice.start}`);
  return next.value;
}
