// A SHA-256 worker thread (started by blobHasher.ts). Plain JavaScript on purpose, as signWorker.mjs:
// it loads under tsx and as compiled output alike, and needs no TypeScript loader of its own.
// Protocol (sha256WorkerProtocol.ts): pieces of many sessions arrive in order per session; each piece
// is hashed and its buffer sent back (transferred) for the session to fill again.
import { createHash } from 'node:crypto';
import { parentPort } from 'node:worker_threads';

const hashes = new Map();

parentPort.on('message', (message) => {
  const { type, id } = message;
  if (type === 'update') {
    let hash = hashes.get(id);
    if (!hash) hashes.set(id, (hash = createHash('sha256')));
    hash.update(new Uint8Array(message.piece, 0, message.length));
    parentPort.postMessage({ type: 'hashed', id, piece: message.piece }, [message.piece]);
  } else if (type === 'digest') {
    const hash = hashes.get(id) ?? createHash('sha256');
    hashes.delete(id);
    parentPort.postMessage({ type: 'digest', id, hex: hash.digest('hex') });
  } else if (type === 'drop') {
    hashes.delete(id);
  }
});
