import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { BlobStoreUnavailable } from '../../ports/blobStore.js';
import { guardSqlite, unavailableCode } from './unavailable.js';

/** A row of the table: a blob's bytes and the generation of its last write. */
export interface SmallBlobRow {
  gen: number;
  bytes: Buffer;
  modifiedAt: number;
}

export interface SmallBlobEntry {
  key: string;
  size: number;
  modifiedAt: number;
}

/**
 * Small blobs as rows of a SQLite file, each with a generation (a counter in the file that every
 * write moves on): reads on the calling thread, writes by a thread of its own (smallBlobWorker.mjs)
 * that commits the writes of one turn together, so a hundred small blobs cost one sync of the log
 * rather than a file, a rename and two syncs each, and the event loop never waits on the disk. A
 * write that names a generation changes the row only if it still has it, so a caller never undoes
 * a write it did not see.
 */
export interface SmallBlobTable {
  get(key: string): SmallBlobRow | undefined;
  /** the row's generation and size, without its bytes */
  head(key: string): { gen: number; size: number } | undefined;
  /** the rows whose keys are in [low, high), in key order, after `afterKey` */
  page(low: string, high: string, afterKey: string, limit: number): SmallBlobEntry[];
  /** the last generation given: a row written from now on has a higher one */
  lastGen(): number;
  /** durable when it resolves; answers the row's generation */
  put(key: string, bytes: Uint8Array): Promise<number>;
  /** whether the row was there at `gen` (and is now gone) */
  deleteIf(key: string, gen: number): Promise<boolean>;
  /** the row `from` at `gen` becomes the row `to` (replacing it) in one commit: `to`'s new gen, or undefined when `from` was not at `gen` */
  move(from: string, gen: number, to: string): Promise<number | undefined>;
  /** cuts the row at `gen` to `size` bytes: its gen afterwards (unchanged when it was no longer), or undefined when it was not at `gen` */
  truncate(key: string, gen: number, size: number): Promise<number | undefined>;
  /** deletes the rows in [low, high) written at or before `atMostGen`; answers how many */
  deleteRange(low: string, high: string, atMostGen: number): Promise<number>;
  /** a write of a page's size, committed and deleted: fails as a put would when the disk cannot take it */
  probeWrite(): Promise<void>;
  close(): Promise<void>;
}

type Op =
  | { op: 'put'; key: string; bytes: Uint8Array; now: number }
  | { op: 'deleteIf'; key: string; gen: number }
  | { op: 'move'; from: string; gen: number; to: string; now: number }
  | { op: 'truncate'; key: string; gen: number; size: number; now: number }
  | { op: 'deletePrefix'; low: string; high: string; atMostGen: number }
  | { op: 'probe' };

type FromWorker =
  { type: 'ready' } | { type: 'done'; answers: { id: number; value: unknown }[] } | { type: 'failed'; ids: number[]; message: string; code?: string };

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS small_blobs (
    key TEXT NOT NULL UNIQUE, gen INTEGER NOT NULL, modified_at INTEGER NOT NULL, bytes BLOB NOT NULL);
  CREATE TABLE IF NOT EXISTS small_blob_gen (id INTEGER PRIMARY KEY CHECK (id = 1), gen INTEGER NOT NULL);
  INSERT OR IGNORE INTO small_blob_gen (id, gen) VALUES (1, 0);
  CREATE TABLE IF NOT EXISTS small_blob_probe (id INTEGER PRIMARY KEY, padding BLOB NOT NULL);
`;

const unavailable = (code: string, cause: unknown) => new BlobStoreUnavailable(`the small-blob file cannot be used now (${code})`, { cause });

export function openSmallBlobTable(path: string, { busyTimeoutMs = 5000 }: { busyTimeoutMs?: number } = {}): SmallBlobTable {
  mkdirSync(dirname(path), { recursive: true });
  const db = guardSqlite(() => new Database(path, { timeout: busyTimeoutMs }), unavailable);
  guardSqlite(() => {
    db.pragma('journal_mode = WAL');
    // this connection only reads: the writer thread's commits checkpoint the log
    db.pragma('wal_autocheckpoint = 0');
    // made once: a write transaction at every open would wait on (and for) the other processes' writers
    if (db.prepare("SELECT count(*) FROM sqlite_schema WHERE name = 'small_blob_probe'").pluck().get() === 0) {
      db.transaction(() => db.exec(SCHEMA)).immediate();
    }
  }, unavailable);
  const getRow = db.prepare('SELECT gen, modified_at AS modifiedAt, bytes FROM small_blobs WHERE key = ?');
  const getHead = db.prepare('SELECT gen, length(bytes) AS size FROM small_blobs WHERE key = ?');
  const getPage = db.prepare(
    'SELECT key, length(bytes) AS size, modified_at AS modifiedAt FROM small_blobs WHERE key >= ? AND key < ? AND key > ? ORDER BY key LIMIT +?',
  );
  const getLastGen = db.prepare('SELECT gen FROM small_blob_gen WHERE id = 1').pluck();

  let worker: Worker | undefined;
  let nextId = 1;
  const waiting = new Map<number, { resolve(value: unknown): void; reject(error: unknown): void }>();
  let closed = false;

  const failAll = (error: unknown) => {
    for (const [id, w] of waiting) {
      waiting.delete(id);
      w.reject(error);
    }
  };

  function writer(): Worker {
    if (worker) return worker;
    const started = new Worker(new URL('./smallBlobWorker.mjs', import.meta.url), { workerData: { path, busyTimeoutMs }, execArgv: [] });
    started.on('message', (message: FromWorker) => {
      if (message.type === 'done') {
        for (const { id, value } of message.answers) settle(id, (w) => w.resolve(value));
      } else if (message.type === 'failed') {
        const cause = Object.assign(new Error(message.message), message.code === undefined ? {} : { code: message.code });
        const code = unavailableCode(cause);
        const error = code === undefined ? cause : unavailable(code, cause);
        for (const id of message.ids) settle(id, (w) => w.reject(error));
      }
    });
    started.on('error', (error) => {
      // what it was given may or may not be written: its callers hear so, the next write starts another
      if (worker === started) worker = undefined;
      failAll(new BlobStoreUnavailable('the small-blob writer thread failed', { cause: error }));
    });
    started.on('exit', () => {
      if (worker === started) worker = undefined;
      failAll(new BlobStoreUnavailable('the small-blob writer thread ended'));
    });
    // a process may end while the writer has nothing to do (see `send` and `settle`)
    started.unref();
    worker = started;
    return started;
  }

  function settle(id: number, how: (w: { resolve(value: unknown): void; reject(error: unknown): void }) => void): void {
    const w = waiting.get(id);
    if (w === undefined) return;
    waiting.delete(id);
    // idle: the process need not wait for the thread (unless closing, which waits for it to end)
    if (waiting.size === 0 && !closed) worker?.unref();
    how(w);
  }

  function send<T>(op: Op): Promise<T> {
    if (closed) return Promise.reject(new Error('small-blob table is closed'));
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      const thread = writer();
      // the process waits for the answers it is owed
      thread.ref();
      thread.postMessage({ id, ...op });
    });
  }

  const read = <T>(operation: () => T): T => guardSqlite(operation, unavailable);

  return {
    get: (key) => read(() => getRow.get(key) as SmallBlobRow | undefined),
    head: (key) => read(() => getHead.get(key) as { gen: number; size: number } | undefined),
    page: (low, high, afterKey, limit) => read(() => getPage.all(low, high, afterKey, limit) as SmallBlobEntry[]),
    lastGen: () => read(() => getLastGen.get() as number),
    put: (key, bytes) => send<number>({ op: 'put', key, bytes, now: Date.now() }),
    deleteIf: (key, gen) => send<boolean>({ op: 'deleteIf', key, gen }),
    move: async (from, gen, to) => (await send<number | null>({ op: 'move', from, gen, to, now: Date.now() })) ?? undefined,
    truncate: async (key, gen, size) => (await send<number | null>({ op: 'truncate', key, gen, size, now: Date.now() })) ?? undefined,
    deleteRange: (low, high, atMostGen) => send<number>({ op: 'deletePrefix', low, high, atMostGen }),
    probeWrite: async () => {
      await send<null>({ op: 'probe' });
    },
    async close() {
      if (closed) return;
      closed = true;
      const ending = worker;
      if (ending) {
        // the writes already posted are committed first (the thread flushes its queue on close)
        const exited = new Promise<void>((resolve) => ending.once('exit', () => resolve()));
        ending.ref();
        ending.postMessage({ type: 'close' });
        await exited;
      }
      db.close();
    },
  };
}
