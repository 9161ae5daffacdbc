import type { BlobDigest } from './deepHash.js';

/**
 * Messages between blobHasher.ts and its worker threads (blobHashWorker.mjs). A session's messages are
 * handled in the order they were posted. Pieces are SharedArrayBuffers of the hasher's pool, named by
 * number: `shared` comes with the first `update` of a piece a worker has not seen (it keeps it until
 * told to `forget` it), and `hashed` gives the piece's number back once its `length` bytes are hashed,
 * for the session to fill it again. Bytes are copied once, into the piece; no message carries a
 * buffer after the first, so neither thread allocates memory outside its heap per piece (transferred
 * ArrayBuffers were new external memory on each side every time, which drove full collections of the
 * request's thread during a large upload).
 *
 * `payload` asks for a SHA-384 of the session's bytes from byte `from` on as well (an item's payload,
 * whose deep hash the signature covers), posted before any byte past `from`. `file` has the worker
 * read `length` bytes of an open file descriptor of this process at `position` itself and hash them
 * as the session's next bytes, answered `read` (the caller keeps the descriptor open until then) or
 * `failed`, which fails the session alone (its later ranges and its digest are answered `failed` too).
 */
export type HashRequest =
  | { type: 'update'; id: number; piece: number; length: number; shared?: SharedArrayBuffer }
  | { type: 'forget'; piece: number }
  | { type: 'payload'; id: number; from: number }
  | { type: 'file'; id: number; fd: number; position: number; length: number }
  | { type: 'digest'; id: number }
  | { type: 'drop'; id: number };

export type HashResponse =
  | { type: 'hashed'; id: number; piece: number }
  | { type: 'read'; id: number }
  | { type: 'failed'; id: number; message: string; of: 'file' | 'digest' }
  | { type: 'digest'; id: number; digests: Digests };

/** what a session answers for its bytes (HashSession.digests) */
export interface Digests {
  /** hex */
  sha256: string;
  /** the payload's, once `payloadFrom` asked for it */
  payload?: BlobDigest;
}
