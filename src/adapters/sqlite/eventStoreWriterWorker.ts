/**
 * The writer worker: its own connection to the store's file, writing the groups the main thread sends
 * one transaction each (groupTransaction, as the in-thread writer does), and answering when COMMIT has
 * returned: with `synchronous = FULL`, when the log is on disk. Reads stay on the main thread's
 * connection; WAL lets them run while this one writes.
 *
 * Messages are handled one at a time in the order sent, so a pragma posted before an append applies
 * to it. Anything thrown outside a group's handling ends the thread, and the store fails what was in
 * flight (eventStoreWorkerWriter.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { passCommitGate } from './eventStoreCommitGate.js';
import { groupTransaction } from './eventStoreGroupCommit.js';
import { prepareStatements } from './eventStoreSchema.js';
import { toWire, type FromWriter, type ToWriter, type WriterData } from './eventStoreWriterProtocol.js';
import { writeProbe } from './writeProbe.js';

const port = parentPort!;
const data = workerData as WriterData;

const db = new Database(data.path, { timeout: data.busyTimeoutMs });
db.pragma('journal_mode = WAL');
// FULL: the WAL is fsynced at every commit, so an answered append is on disk.
db.pragma('synchronous = FULL');
for (const source of data.pragmas) db.pragma(source);
const gate = data.commitGate;
const writeGroup = groupTransaction(db, prepareStatements(db), gate === undefined ? undefined : () => passCommitGate(gate));
const probe = writeProbe(db);

const answer = (message: FromWriter) => port.postMessage(message);

port.on('message', (message: ToWriter) => {
  switch (message.type) {
    case 'group': {
      try {
        const outcomes = writeGroup(message.requests, message.created);
        answer({
          type: 'group',
          id: message.id,
          outcomes: outcomes.map((o) => (o.ok ? o : { ok: false, error: toWire(o.error) })),
        });
      } catch (error) {
        answer({ type: 'group', id: message.id, failure: toWire(error) });
      }
      return;
    }
    case 'probe': {
      try {
        probe();
        answer({ type: 'probe', id: message.id });
      } catch (error) {
        answer({ type: 'probe', id: message.id, failure: toWire(error) });
      }
      return;
    }
    case 'pragma':
      db.pragma(message.source);
      return;
    case 'close':
      db.close();
      port.close();
      return;
  }
});
