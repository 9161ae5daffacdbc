// A blob hashing worker thread (started by blobHasher.ts). Plain JavaScript on purpose, as signWorker.mjs:
// it loads under tsx and as compiled output alike, and needs no TypeScript loader of its own.
// Protocol (blobHashWorkerProtocol.ts): pieces of many sessions arrive in order per session; each piece
// (shared memory, named by number) is hashed and its number sent back for the session to fill it again. A session may ask
// for a SHA-384 of its bytes from an offset on too (an item's payload), and have the worker read
// ranges of an open file itself: those bytes then cross no thread.
import { readSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { BlobHashes } from './blobHashes.mjs';

/** id → { hashes: BlobHashes, failed: why a file read failed } */
const sessions = new Map();
/** piece number → a view of its shared memory, kept from its first update until told to forget it */
const pieces = new Map();
// a file is read in pieces that stay in the core's cache between the two hashes
const READ_BYTES = 256 * 1024;
let readBuffer;

const sessionOf = (id) => {
  let session = sessions.get(id);
  if (!session) sessions.set(id, (session = { hashes: new BlobHashes(), failed: undefined }));
  return session;
};

function hash(session, bytes) {
  if (session.failed === undefined) session.hashes.update(bytes);
}

function hashFile(session, { fd, position, length }) {
  readBuffer ??= new Uint8Array(READ_BYTES);
  for (let done = 0; done < length;) {
    const read = readSync(fd, readBuffer, 0, Math.min(READ_BYTES, length - done), position + done);
    if (read === 0) throw new Error(`the file gave ${done} of ${length} bytes at ${position}`);
    hash(session, readBuffer.subarray(0, read));
    done += read;
  }
}

parentPort.on('message', (message) => {
  const { type, id } = message;
  if (type === 'update') {
    if (message.shared) pieces.set(message.piece, new Uint8Array(message.shared));
    hash(sessionOf(id), pieces.get(message.piece).subarray(0, message.length));
    parentPort.postMessage({ type: 'hashed', id, piece: message.piece });
  } else if (type === 'forget') {
    pieces.delete(message.piece);
  } else if (type === 'payload') {
    sessionOf(id).hashes.payloadFrom(message.from);
  } else if (type === 'file') {
    const session = sessionOf(id);
    try {
      if (session.failed === undefined) hashFile(session, message);
    } catch (error) {
      // its digest would not be of the bytes it was given: the session hashes nothing more
      session.failed = error instanceof Error ? error.message : String(error);
    }
    parentPort.postMessage(session.failed === undefined ? { type: 'read', id } : { type: 'failed', id, message: session.failed, of: 'file' });
  } else if (type === 'digest') {
    const session = sessionOf(id);
    sessions.delete(id);
    if (session.failed !== undefined) return parentPort.postMessage({ type: 'failed', id, message: session.failed, of: 'digest' });
    parentPort.postMessage({ type: 'digest', id, digests: session.hashes.digests() });
  } else if (type === 'drop') {
    sessions.delete(id);
  }
});
