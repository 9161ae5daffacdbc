/**
 * The embedded event store: one SQLite file (better-sqlite3), WAL, durable commits, group commit.
 *
 * Several processes may open the same file: writers take turns on SQLite's write lock (waiting up to
 * `busyTimeoutMs`), and each instance's subscriptions poll the file so they see the others' appends.
 *
 * A file's appends (and readiness's probe write) are written by a worker thread with a connection of
 * its own (eventStoreWorkerWriter.ts), so no commit holds the event loop while it waits on fsync;
 * reads and subscriptions use this thread's connection, which WAL lets read while the worker writes.
 */
import Database from 'better-sqlite3';
import {
  AppendTooLarge,
  EventStoreUnavailable,
  MAX_APPEND_BYTES,
  serializedSize,
  serializeEvent,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type StreamName,
  type Subscription,
} from '../../ports/eventStore.js';
import type { SerializedEvent } from './eventStoreAppend.js';
import { eventStoreUnavailable, GroupCommitWriter, type AppendWriter, type GroupCommitStats } from './eventStoreGroupCommit.js';
import { createSchema, prepareStatements, toRecordedEvent, type Statements } from './eventStoreSchema.js';
import { SqliteSubscription } from './eventStoreSubscription.js';
import { WorkerGroupCommitWriter, type WorkerWriterOptions } from './eventStoreWorkerWriter.js';
import { guardSqlite } from './unavailable.js';

export interface SqliteEventStoreOptions {
  path: string;
  /** how often subscriptions look for appends made by other processes (default 200 ms) */
  pollIntervalMs?: number;
  /** how long a writer waits for another process holding the write lock (default 5000 ms) */
  busyTimeoutMs?: number;
  /** most appends written by one transaction (default 1000) */
  maxGroupSize?: number;
  /** a group held for the appends on their way, at most `ms` (WorkerWriterOptions.groupWait; default none) */
  groupWait?: { ms: number; appendsComing: () => number };
  /** rows read per query by reads and subscriptions (default 500) */
  pageSize?: number;
  /** the most bytes one append may carry (appendSize; default MAX_APPEND_BYTES, as EventStoreDB's default) */
  maxAppendBytes?: number;
  /** clock for `created` (default Date.now) */
  now?: () => number;
  /** Called with this thread's connection once it is set up (a pragma for every connection: `pragma`). */
  onOpen?: (db: Database.Database) => void;
  /** starts the writer thread of a file (WorkerWriterOptions.startWriter; default: the writer worker) */
  startWriter?: WorkerWriterOptions['startWriter'];
}

export interface SqliteEventStore extends EventStore {
  probeWrite(): Promise<void>;
  /**
   * A pragma assignment (`max_page_count = 100`, `query_only = ON`) on every connection of the store:
   * this thread's, and its writer's (a writer started later too), before any append made after it.
   * Answers what this thread's connection answers.
   */
  pragma(source: string): unknown;
  /** appends taken and not answered yet: queued, held for others (groupWait) or being written */
  pendingAppends(): number;
  stats(): GroupCommitStats;
}

export function openSqliteEventStore(options: SqliteEventStoreOptions): SqliteEventStore {
  const db = new Database(options.path, { timeout: options.busyTimeoutMs ?? 5000 });
  try {
    db.pragma('journal_mode = WAL');
    // FULL: the WAL is fsynced at every commit, so an answered append is on disk.
    db.pragma('synchronous = FULL');
    createSchema(db);
    const store = new SqliteStore(db, prepareStatements(db), options);
    options.onOpen?.(db);
    return store;
  } catch (error) {
    db.close();
    throw error;
  }
}

class SqliteStore implements SqliteEventStore {
  private closed = false;
  private readonly subscriptions = new Set<SqliteSubscription>();
  private readonly writer: AppendWriter;
  private readonly pollIntervalMs: number;
  private readonly pageSize: number;
  private readonly maxAppendBytes: number;

  constructor(
    private readonly db: Database.Database,
    private readonly statements: Statements,
    options: SqliteEventStoreOptions,
  ) {
    this.pollIntervalMs = options.pollIntervalMs ?? 200;
    this.pageSize = options.pageSize ?? 500;
    this.maxAppendBytes = options.maxAppendBytes ?? MAX_APPEND_BYTES;
    const writing = {
      now: options.now ?? Date.now,
      maxGroupSize: options.maxGroupSize ?? 1000,
      onCommit: () => {
        for (const s of this.subscriptions) s.notify();
      },
    };
    // An in-memory database is seen by the connection that made it only: its writes stay here.
    this.writer = isInMemory(options.path)
      ? new GroupCommitWriter({ db, statements, ...writing })
      : new WorkerGroupCommitWriter({
          path: options.path,
          busyTimeoutMs: options.busyTimeoutMs ?? 5000,
          startWriter: options.startWriter,
          groupWait: options.groupWait,
          ...writing,
        });
  }

  pragma(source: string): unknown {
    this.assertOpen();
    const value = this.db.pragma(source);
    this.writer.pragma(source);
    return value;
  }

  async append(stream: StreamName, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    this.assertOpen();
    // Serialized here, so an event that is not JSON fails its own append and not the group.
    const serialized = serialize(events);
    // The server's rule, here too: an append this store takes, EventStoreDB takes as well.
    const size = serialized.reduce((sum, e) => sum + serializedSize(e), 0);
    if (size > this.maxAppendBytes) throw new AppendTooLarge(stream, size, this.maxAppendBytes);
    return this.writer.append({ stream, events: serialized, expected });
  }

  async *readStream(stream: StreamName, options: ReadStreamOptions = {}): AsyncIterable<RecordedEvent> {
    let from = options.fromRevision ?? 0n;
    let remaining = options.maxCount ?? Number.POSITIVE_INFINITY;
    while (remaining > 0) {
      this.assertOpen();
      // Paged rather than iterated: a statement left open across `yield` would block the writer.
      const page = this.guarded(() => this.statements.streamPage(stream, from, Math.min(remaining, this.pageSize)));
      for (const row of page) {
        const event = toRecordedEvent(row);
        from = event.revision + 1n;
        remaining -= 1;
        yield event;
      }
      if (page.length < this.pageSize) return;
    }
  }

  async *readAll(options: ReadAllOptions = {}): AsyncIterable<RecordedEvent> {
    let after = options.after ?? 0n;
    let remaining = options.maxCount ?? Number.POSITIVE_INFINITY;
    while (remaining > 0) {
      this.assertOpen();
      const page = this.guarded(() => this.statements.allPage(after, Math.min(remaining, this.pageSize)));
      for (const row of page) {
        const event = toRecordedEvent(row);
        after = event.position;
        remaining -= 1;
        yield event;
      }
      if (page.length < this.pageSize) return;
    }
  }

  subscribeToAll(options: { after?: bigint } = {}): Subscription {
    this.assertOpen();
    const subscription = new SqliteSubscription(
      {
        readAfter: (after, limit) => (this.closed ? [] : this.guarded(() => this.statements.allPage(after, limit)).map(toRecordedEvent)),
        remove: (s) => this.subscriptions.delete(s),
      },
      options.after ?? 0n,
      this.pollIntervalMs,
      this.pageSize,
    );
    this.subscriptions.add(subscription);
    return subscription;
  }

  async headPosition(): Promise<bigint> {
    this.assertOpen();
    return this.guarded(() => this.statements.head());
  }

  async countEventsAfter(after: bigint, limit: number): Promise<number> {
    this.assertOpen();
    if (limit <= 0) return 0;
    return this.guarded(() => this.statements.countAfter(after, limit));
  }

  async probeWrite(): Promise<void> {
    this.assertOpen();
    return this.writer.probe();
  }

  stats(): GroupCommitStats {
    return this.writer.stats();
  }

  pendingAppends(): number {
    return this.writer.pending();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Appends already accepted are written before the file is closed.
    await this.writer.close();
    await Promise.all([...this.subscriptions].map((s) => s.close()));
    this.db.close();
  }

  /** a read the file cannot serve now (I/O error, lock) answers EventStoreUnavailable */
  private guarded<T>(read: () => T): T {
    return guardSqlite(read, eventStoreUnavailable);
  }

  private assertOpen(): void {
    if (this.closed) throw new EventStoreUnavailable('the SQLite event store is closed');
  }
}

const isInMemory = (path: string) => path === ':memory:' || path === '';

function serialize(events: NewEvent[]): SerializedEvent[] {
  const ids = new Set<string>();
  return events.map((e) => {
    if (ids.has(e.id)) throw new Error(`event id ${e.id} appears twice in one append`);
    ids.add(e.id);
    return { id: e.id, ...serializeEvent(e) };
  });
}
