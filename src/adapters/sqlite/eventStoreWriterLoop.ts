/**
 * The writer worker's work: its own connection to the store's file, writing the groups the main thread
 * sends one transaction each (groupTransaction, as the in-thread writer does), and answering when
 * COMMIT has returned: with `synchronous = FULL`, when the log is on disk. Reads stay on the main
 * thread's connection; WAL lets them run while this one writes. The worker's entry
 * (eventStoreWriterWorker.ts) runs it on the thread's port.
 *
 * Messages are handled one at a time in the order sent, so a pragma posted before an append applies
 * to it. Anything thrown outside a group's handling ends the thread, and the store fails what was in
 * flight (eventStoreWorkerWriter.ts).
 */
import type { MessagePort } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { match } from 'ts-pattern';
import type { AppendRequest } from './eventStoreAppend.js';
import { groupTransaction } from './eventStoreGroupCommit.js';
import { prepareStatements } from './eventStoreSchema.js';
import { toWire, type FromWriter, type ToWriter, type WriterData } from './eventStoreWriterProtocol.js';
import { writeProbe } from './writeProbe.js';

/** Opens the connection, says it is ready, and writes what `port` brings; `beforeCommit` runs inside each group's transaction, after its inserts. */
export function runWriter(port: MessagePort, data: WriterData, beforeCommit?: () => void): void {
  const db = new Database(data.path, { timeout: data.busyTimeoutMs });
  db.pragma('journal_mode = WAL');
  // FULL: the WAL is fsynced at every commit, so an answered append is on disk.
  db.pragma('synchronous = FULL');
  for (const source of data.pragmas) db.pragma(source);
  const writeGroup = groupTransaction(db, prepareStatements(db), beforeCommit);
  const probe = writeProbe(db);

  /** one group, one transaction: the outcomes after COMMIT, or what failed the whole group */
  function writeAndAnswer(id: number, requests: AppendRequest[], created: number): FromWriter {
    try {
      const outcomes = writeGroup(requests, created);
      return { type: 'group', id, outcomes: outcomes.map((o) => (o.ok ? o : { ok: false, error: toWire(o.error) })) };
    } catch (error) {
      return { type: 'group', id, failure: toWire(error) };
    }
  }

  function probeAndAnswer(id: number): FromWriter {
    try {
      probe();
      return { type: 'probe', id };
    } catch (error) {
      return { type: 'probe', id, failure: toWire(error) };
    }
  }

  // from here on, a group the worker was given may be written
  port.postMessage({ type: 'ready' } satisfies FromWriter);

  port.on('message', (message: ToWriter) =>
    match(message)
      .with({ type: 'group' }, (m) => port.postMessage(writeAndAnswer(m.id, m.requests, m.created)))
      .with({ type: 'probe' }, (m) => port.postMessage(probeAndAnswer(m.id)))
      .with({ type: 'pragma' }, (m) => db.pragma(m.source))
      .with({ type: 'close' }, () => {
        db.close();
        port.close();
      })
      .exhaustive(),
  );
}
