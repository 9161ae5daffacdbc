/** The writer worker's entry (started by eventStoreWriterThread.ts): the writer loop on this thread's port. */
import { parentPort, workerData } from 'node:worker_threads';
import type { WriterData } from './eventStoreWriterProtocol.js';
import { runWriter } from './eventStoreWriterLoop.js';

runWriter(parentPort!, workerData as WriterData);
