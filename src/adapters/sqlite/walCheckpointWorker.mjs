// The read store's checkpointing thread (started by walCheckpointer.ts). Plain JavaScript on purpose,
// as signWorker.mjs: it loads without a TypeScript loader. It holds a connection of its own to the
// store's file and, asked to, copies the write-ahead log into the database (a PASSIVE checkpoint:
// it never waits for a reader or a writer), so that the copying and its two fsyncs happen here and
// not on the event loop. Protocol: { type: 'checkpoint' } → { type: 'checkpointed', busy, log,
// checkpointed } or { type: 'failed', message, code }; { type: 'close' } → the connection is closed
// and the thread ends.
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';

const db = new Database(workerData.path, { fileMustExist: true });
// the store's own setting: a checkpoint syncs the log before and the database after it
db.pragma('synchronous = NORMAL');

parentPort.on('message', (message) => {
  if (message.type === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    const [{ busy, log, checkpointed }] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ type: 'checkpointed', busy, log, checkpointed });
  } catch (error) {
    parentPort.postMessage({ type: 'failed', message: String(error?.message ?? error), code: error?.code });
  }
});
