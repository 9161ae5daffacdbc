import { createHash } from 'node:crypto';

/**
 * Arweave's chunking of a transaction's data (arweave-js `chunkData`), fed piece by piece.
 *
 * arweave-js cuts 256 KiB chunks from the front while at least 256 KiB remain, except that when
 * what would follow a full chunk is under 32 KiB (and not zero), that chunk takes half of the rest,
 * rounded up, and the last chunk the other half. Whatever remains is the last chunk, which is empty
 * when the size is a multiple of 256 KiB: that empty chunk still gets a leaf in the tree.
 *
 * Only the last two chunks depend on the total size, which a stream tells only at its end. So a
 * full chunk is cut as soon as 256 + 32 KiB are pending (arweave-js cuts a full chunk there too),
 * and at most that much of the data is held, by reference to the pieces it came in.
 */

export const MAX_CHUNK_SIZE = 256 * 1024;
export const MIN_CHUNK_SIZE = 32 * 1024;

export interface HashedChunk {
  minByteRange: number;
  /** exclusive */
  maxByteRange: number;
  /** SHA-256 of the chunk's bytes */
  dataHash: Uint8Array;
}

export class Chunker {
  /** pieces not yet fully hashed: `pieces[first]` is consumed from `head` on, those before it are done */
  private readonly pieces: Uint8Array[] = [];
  private first = 0;
  private head = 0;
  private pending = 0;
  private cursor = 0;
  private finished = false;

  /** `onChunk` gets every chunk in order; the pieces given to `update` must not change afterwards */
  constructor(private readonly onChunk: (chunk: HashedChunk) => void) {}

  update(piece: Uint8Array): void {
    if (this.finished) throw new Error('chunker already finished');
    if (piece.byteLength === 0) return;
    this.pieces.push(piece);
    this.pending += piece.byteLength;
    while (this.pending >= MAX_CHUNK_SIZE + MIN_CHUNK_SIZE) this.cut(MAX_CHUNK_SIZE);
  }

  /** arweave-js' own loop over what is left (under 288 KiB), then the last chunk, maybe empty */
  finish(): void {
    if (this.finished) throw new Error('chunker already finished');
    this.finished = true;
    while (this.pending >= MAX_CHUNK_SIZE) {
      const next = this.pending - MAX_CHUNK_SIZE;
      this.cut(next > 0 && next < MIN_CHUNK_SIZE ? Math.ceil(this.pending / 2) : MAX_CHUNK_SIZE);
    }
    this.cut(this.pending);
  }

  private cut(size: number): void {
    const hash = createHash('sha256');
    for (let left = size; left > 0; ) {
      const piece = this.pieces[this.first] as Uint8Array;
      const take = Math.min(piece.byteLength - this.head, left);
      hash.update(piece.subarray(this.head, this.head + take));
      left -= take;
      this.head += take;
      if (this.head === piece.byteLength) {
        this.first += 1;
        this.head = 0;
      }
    }
    // dropped once per chunk, not per piece: shifting one by one is quadratic when pieces are tiny
    this.pieces.splice(0, this.first);
    this.first = 0;
    this.pending -= size;
    const minByteRange = this.cursor;
    this.cursor += size;
    this.onChunk({ minByteRange, maxByteRange: this.cursor, dataHash: hash.digest() });
  }
}
