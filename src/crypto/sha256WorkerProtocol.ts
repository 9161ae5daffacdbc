/**
 * Messages between blobHasher.ts and its worker threads (sha256Worker.mjs). A session's messages are
 * handled in the order they were posted; `piece` is transferred both ways (filled by the session,
 * hashed by the worker, sent back to be filled again), so bytes are copied once, into the piece.
 */
export type HashRequest = { type: 'update'; id: number; piece: ArrayBuffer; length: number } | { type: 'digest'; id: number } | { type: 'drop'; id: number };

export type HashResponse = { type: 'hashed'; id: number; piece: ArrayBuffer } | { type: 'digest'; id: number; hex: string };
