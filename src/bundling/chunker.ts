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
 * and what is not yet hashed is copied into one buffer of that size. Copying, rather than keeping
 * the caller's pieces, lets every piece die young: holding 1 MiB read buffers across reads made
 * the garbage collector take as long as the hashing.
 */

export const MAX_CHUNK_SIZE = 256 * 1024;
export const MIN_CHUNK_SIZE = 32 * 1024;
const WINDOW = MAX_CHUNK_SIZE + MIN_CHUNK_SIZE;

export interface HashedChunk {
  minByteRange: number;
  /** exclusive */
  maxByteRange: number;
  /** SHA-256 of the chunk's bytes */
  dataHash: Uint8Array;
}

export class Chunker {
  /** bytes received but not hashed, always fewer than WINDOW between calls */
  private readonly carry = Buffer.allocUnsafe(WINDOW);
  private carried = 0;
  private cursor = 0;
  private finished = false;

  /** `onChunk` gets every chunk in order */
  constructor(private readonly onChunk: (chunk: HashedChunk) => void) {}

  update(piece: Uint8Array): void {
    if (this.finished) throw new Error('chunker already finished');
    let at = 0;
    while (this.carried + piece.byteLength - at >= WINDOW) {
      // a full chunk: the carried bytes first, then the piece's, without copying the piece
      const hash = createHash('sha256');
      const fromCarry = Math.min(this.carried, MAX_CHUNK_SIZE);
      hash.update(this.carry.subarray(0, fromCarry));
      const fromPiece = MAX_CHUNK_SIZE - fromCarry;
      hash.update(piece.subarray(at, at + fromPiece));
      at += fromPiece;
      this.carry.copyWithin(0, fromCarry, this.carried);
      this.carried -= fromCarry;
      this.emit(MAX_CHUNK_SIZE, hash.digest());
    }
    this.carry.set(piece.subarray(at), this.carried);
    this.carried += piece.byteLength - at;
  }

  /** arweave-js' own loop over what is left (under 288 KiB), then the last chunk, maybe empty */
  finish(): void {
    if (this.finished) throw new Error('chunker already finished');
    this.finished = true;
    let at = 0;
    const left = () => this.carried - at;
    while (left() >= MAX_CHUNK_SIZE) {
      const next = left() - MAX_CHUNK_SIZE;
      const size = next > 0 && next < MIN_CHUNK_SIZE ? Math.ceil(left() / 2) : MAX_CHUNK_SIZE;
      this.emit(size, sha256(this.carry.subarray(at, at + size)));
      at += size;
    }
    this.emit(left(), sha256(this.carry.subarray(at, this.carried)));
    this.carried = 0;
  }

  private emit(size: number, dataHash: Uint8Array): void {
    const minByteRange = this.cursor;
    this.cursor += size;
    this.onChunk({ minByteRange, maxByteRange: this.cursor, dataHash });
  }
}

const sha256 = (bytes: Uint8Array): Buffer => createHash('sha256').update(bytes).digest();
