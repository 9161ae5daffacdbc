/**
 * Starts the writer worker (eventStoreWriterWorker) from this module's own place, so it loads the
 * same way this file did: compiled, the worker's `.js` beside it is started as it is; under tsx
 * (`npm start`, the tests) a worker does not inherit the main thread's loader, so a plain module
 * beside it (eventStoreWriterBoot.mjs) registers tsx in the worker and then imports the worker's `.ts`.
 */
import { Worker } from 'node:worker_threads';
import type { WriterData } from './eventStoreWriterProtocol.js';

export function startWriterThread(data: WriterData): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./eventStoreWriterWorker.js', import.meta.url), { workerData: data });
  return new Worker(new URL('./eventStoreWriterBoot.mjs', import.meta.url), { workerData: data, execArgv: [] });
}
