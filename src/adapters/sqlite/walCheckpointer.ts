import type Database from 'better-sqlite3';
import { Worker } from 'node:worker_threads';

/** SQLite's own automatic checkpoint threshold, in frames: what the connection goes back to without the thread */
const SQLITE_AUTOCHECKPOINT = 1000;

export interface WalCheckpointerOptions {
  /** the store's connection, on this thread; its automatic checkpoints are turned off */
  db: Database.Database;
  /** the store's file, which the thread opens a connection of its own to */
  path: string;
  /**
   * documents committed since the last checkpoint that start the next one. Each document touches at
   * least one page, so this bounds the log at about as many frames as SQLite's own 1000 per
   * checkpoint (1000 documents: about 170 small uploads, 2,000 frames).
   */
  afterDocuments?: number;
  /** the thread failed and the connection checkpoints on its own again */
  log?: (message: string, error?: unknown) => void;
  /** starts the thread (tests wrap it) */
  startWorker?: (path: string) => Worker;
}

export interface WalCheckpointer {
  /** a commit of `documents` writes is done: starts a checkpoint on the thread when enough were written */
  wrote(documents: number): void;
  /**
   * while a checkpoint runs, a promise of its end. A commit waits for it before writing: a checkpoint
   * that copied the whole log with nothing written during it lets the next commit start the log
   * again from its beginning; with commits during every checkpoint the log would only grow.
   */
  running(): Promise<void> | undefined;
  /** checkpoints the thread completed, the log's frames at the last, and whether the thread is used */
  stats(): { checkpoints: number; logFrames: number | undefined; onThread: boolean };
  /** waits for a running checkpoint, closes the thread's connection and ends it */
  close(): Promise<void>;
}

export const startWalCheckpointWorker = (path: string): Worker =>
  new Worker(new URL('./walCheckpointWorker.mjs', import.meta.url), { workerData: { path }, execArgv: [] });

type FromWorker = { type: 'checkpointed'; busy: number; log: number; checkpointed: number } | { type: 'failed'; message: string; code?: string };

/**
 * Checkpoints of a SQLite file in WAL mode, off the event loop. A connection checkpoints by itself at
 * the commit that takes its log past 1000 frames: it copies them into the database and syncs the log
 * and the database, on the thread that committed. For the read store that is the main thread: under
 * small uploads, every second or so, with two fsyncs of milliseconds each.
 * Here the connection's own checkpoints are off, and a worker thread with a connection of its own
 * runs them (PASSIVE: never waiting for a reader or a writer). The thread starts at the first
 * checkpoint, so a store that writes little never starts one. If it fails, the connection takes its
 * checkpoints back (SQLite's default), and that is logged.
 */
export function walCheckpointer({
  db,
  path,
  afterDocuments = 1000,
  log = () => {},
  startWorker = startWalCheckpointWorker,
}: WalCheckpointerOptions): WalCheckpointer {
  db.pragma('wal_autocheckpoint = 0');
  let worker: Worker | undefined;
  let failed = false;
  let closed = false;
  let written = 0;
  let checkpoints = 0;
  let logFrames: number | undefined;
  let current: { done: Promise<void>; end: () => void } | undefined;

  const finish = () => {
    const ending = current;
    current = undefined;
    worker?.unref();
    ending?.end();
  };

  const fallBack = (why: string, error?: unknown) => {
    if (failed) return;
    failed = true;
    worker = undefined;
    db.pragma(`wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT}`);
    log(`read store checkpoints: ${why}; the connection checkpoints on its own again`, error);
    finish();
  };

  const start = (): Worker => {
    const started = startWorker(path);
    started.on('message', (message: FromWorker) => {
      if (message.type === 'checkpointed') {
        checkpoints++;
        logFrames = message.log;
      } else {
        // the file cannot be checkpointed now (a full disk, say): tried again after the next documents
        log(`read store checkpoint failed: ${message.message}`);
      }
      finish();
    });
    started.on('error', (error) => fallBack('the checkpoint thread failed', error));
    started.on('exit', (code) => {
      if (!closed) fallBack(`the checkpoint thread exited (${code})`);
    });
    return started;
  };

  return {
    wrote(documents) {
      written += documents;
      if (written < afterDocuments || current !== undefined || failed || closed) return;
      written = 0;
      worker ??= start();
      worker.ref();
      let end!: () => void;
      const done = new Promise<void>((resolve) => (end = resolve));
      current = { done, end };
      worker.postMessage({ type: 'checkpoint' });
    },
    running: () => current?.done,
    stats: () => ({ checkpoints, logFrames, onThread: !failed }),
    async close() {
      closed = true;
      await current?.done;
      const ending = worker;
      worker = undefined;
      if (ending === undefined) return;
      const exited = new Promise<void>((resolve) => ending.once('exit', () => resolve()));
      ending.ref();
      ending.postMessage({ type: 'close' });
      await exited;
    },
  };
}
