import type { Worker } from 'node:worker_threads';
import { startBlobHashWorker } from '../../src/crypto/blobHasher.js';
import type { HashRequest } from '../../src/crypto/blobHashWorkerProtocol.js';

/**
 * Real SHA-256 workers (for `createBlobHasher({ startWorker })`) whose messages the test may hold
 * back, as a hasher that fell behind, and let go one at a time in the order they were posted; and
 * the workers started, to kill or inspect them.
 */
export function heldHashWorkers() {
  const started: Worker[] = [];
  const held: { request: HashRequest; send: () => void }[] = [];
  const posted: HashRequest[] = [];
  let holding = false;
  let releasedBytes = 0;
  const release = (entry: { request: HashRequest; send: () => void }) => {
    if (entry.request.type === 'update') releasedBytes += entry.request.length;
    entry.send();
  };
  const start = () => {
    const worker = startBlobHashWorker();
    const post = worker.postMessage.bind(worker);
    worker.postMessage = (request: HashRequest, transfer?: readonly ArrayBuffer[]) => {
      posted.push(request);
      const entry = { request, send: () => post(request, transfer as ArrayBuffer[]) };
      if (holding) held.push(entry);
      else release(entry);
    };
    started.push(worker);
    return worker;
  };
  return {
    start,
    started,
    held,
    /** every message posted to the workers, held or not, in order */
    posted,
    /** bytes of the pieces let go to the worker so far (not counting those never held) */
    releasedBytes: () => releasedBytes,
    hold: () => void (holding = true),
    releaseOne: () => {
      const entry = held.shift();
      if (entry) release(entry);
    },
    releaseAll: () => {
      holding = false;
      while (held.length > 0) release(held.shift()!);
    },
  };
}

/** resolves once the worker thread has ended (at once when it had) */
export const exited = (worker: Worker) => new Promise<void>((resolve) => (worker.threadId === -1 ? resolve() : worker.once('exit', () => resolve())));
