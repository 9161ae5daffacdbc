import type { Digests } from './blobHashWorkerProtocol.js';

/** blobHashes.mjs: a blob's SHA-256, and its payload's SHA-384 once asked */
export declare class BlobHashes {
  /** bytes given so far */
  readonly at: number;
  update(bytes: Uint8Array): void;
  /** the SHA-384 of the bytes from byte `from` on too; before any byte past `from` is given */
  payloadFrom(from: number): void;
  digests(): Digests;
}
