/** TEST SCAFFOLDING: the SQLite event store's writer loop, waiting on the test's CommitGate (commitGate.ts) before each COMMIT. */
import { parentPort, workerData } from 'node:worker_threads';
import { runWriter } from '../../src/adapters/sqlite/eventStoreWriterLoop.js';
import { passCommitGate, type GatedWriterData } from './commitGate.js';

const data = workerData as GatedWriterData;
runWriter(parentPort!, data, () => passCommitGate(data.commitGate));
