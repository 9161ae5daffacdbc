// A blob's digests over bytes given in order: the SHA-256 of every byte and, once asked, the SHA-384
// of those from an offset on (an item's payload, the last element of its deep hash). Plain
// JavaScript so that the hashing worker (blobHashWorker.mjs, which runs with no TypeScript loader)
// and the calling thread's hashing in blobHasher.ts share it; its types are in blobHashes.d.mts.
import { createHash } from 'node:crypto';

export class BlobHashes {
  #sha256 = createHash('sha256');
  #sha384;
  #from = 0;
  #at = 0;

  /** bytes given so far */
  get at() {
    return this.#at;
  }

  update(bytes) {
    this.#sha256.update(bytes);
    if (this.#sha384 && this.#at + bytes.byteLength > this.#from) {
      const skip = Math.max(0, this.#from - this.#at);
      this.#sha384.update(skip === 0 ? bytes : bytes.subarray(skip));
    }
    this.#at += bytes.byteLength;
  }

  /** the SHA-384 of the bytes from byte `from` on too; before any byte past `from` is given */
  payloadFrom(from) {
    this.#sha384 = createHash('sha384');
    this.#from = from;
  }

  digests() {
    const payload = this.#sha384 && { sha384: this.#sha384.digest(), byteLength: Math.max(0, this.#at - this.#from) };
    return { sha256: this.#sha256.digest('hex'), ...(payload ? { payload } : {}) };
  }
}
