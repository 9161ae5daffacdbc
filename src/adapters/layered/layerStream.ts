import type { BlobBackend } from './blobBackend.js';
import type { Segment } from './blobPlan.js';

/** holes are streamed as zeros in pieces of this size */
const ZEROS_PIECE = 64 * 1024;

/**
 * The bytes of a planned read, one segment after the other: a layer's bytes as GridFS hands them
 * (a chunk at a time), a hole as zeros. Memory stays at about one chunk whatever the blob's size;
 * a reader that stops early stops the layer read it was in.
 */
export async function* bytesOf(backend: BlobBackend, key: string, segments: readonly Segment[]): AsyncGenerator<Buffer> {
  for (const segment of segments) {
    if (segment.kind === 'zeros') {
      for (let left = segment.length; left > 0; left -= ZEROS_PIECE) yield Buffer.alloc(Math.min(left, ZEROS_PIECE));
      continue;
    }
    let got = 0;
    for await (const chunk of backend.readLayer(segment.id, segment.start, segment.end)) {
      got += chunk.byteLength;
      yield Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    }
    // never a silently short blob
    const expected = segment.end - segment.start;
    if (got !== expected) throw new Error(`blob ${key}: a part gave ${got} bytes where ${expected} were expected`);
  }
}
