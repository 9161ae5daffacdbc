/**
 * Group commit: appends issued in the same turn of the event loop (many HTTP requests handled in one
 * poll phase) are queued and written in ONE transaction, so one fsync serves them all.
 *
 * Each append is checked on its own (applyAppend refuses before inserting anything), so a conflicting
 * append is rejected alone while the others of the group commit; any other error (I/O, lock) fails the
 * whole group, since the transaction is then rolled back; a file that cannot be written now (locked,
 * full, read-only, failing) fails it with EventStoreUnavailable. Promises settle only after COMMIT has
 * returned, and with `synchronous = FULL` that means the WAL is on disk: an answered append survives
 * a crash.
 *
 * A file's groups are written by a worker thread (eventStoreWorkerWriter.ts) so that the event loop
 * never waits on the disk; this in-thread writer serves `:memory:` stores, whose database only the
 * connection that made it can see.
 */
import type Database from 'better-sqlite3';
import { EventStoreUnavailable, WrongExpectedRevision, type AppendResult } from '../../ports/eventStore.js';
import { applyAppend, DuplicateEventId, type AppendRequest } from './eventStoreAppend.js';
import type { Statements } from './eventStoreSchema.js';
import { guardSqlite, unavailableCode } from './unavailable.js';
import { writeProbe } from './writeProbe.js';

interface Pending {
  request: AppendRequest;
  resolve(result: AppendResult): void;
  reject(error: unknown): void;
}

export type Outcome = { ok: true; result: AppendResult } | { ok: false; error: unknown };

export interface GroupCommitStats {
  /** append calls written (or refused) by a transaction */
  appends: number;
  /** write transactions committed or attempted */
  transactions: number;
}

/** What the store asks of whoever writes its appends, in this thread or in a worker. */
export interface AppendWriter {
  append(request: AppendRequest): Promise<AppendResult>;
  /** readiness's write (writeProbe.ts), on the connection the appends use */
  probe(): Promise<void>;
  /** a pragma assignment for the writing connection (SqliteEventStore.pragma) */
  pragma(source: string): void;
  stats(): GroupCommitStats;
  /** appends taken and not answered yet (queued, held or being written) */
  pending(): number;
  /** writes every append already taken, then lets go of the connection */
  close(): Promise<void>;
}

export interface GroupCommitOptions {
  db: Database.Database;
  statements: Statements;
  now: () => number;
  /** bounds one transaction (and the time the event loop is held by it) */
  maxGroupSize: number;
  /** called after each commit that stored events, to wake live subscriptions */
  onCommit: () => void;
}

/** Refusals that concern one append only; anything else (I/O, busy) fails the whole group. */
export const isOwnRefusal = (e: unknown) => WrongExpectedRevision.is(e) || e instanceof DuplicateEventId;

/**
 * The transaction that writes one group: each append applied on its own, a refusal kept as that
 * append's outcome, any other error thrown (the transaction rolls back). `beforeCommit` runs inside the
 * transaction after the last insert (a test's gate). IMMEDIATE takes the write lock at BEGIN, so a busy
 * file waits in busy_timeout instead of failing when a read transaction would have to be upgraded.
 */
export function groupTransaction(
  db: Database.Database,
  statements: Statements,
  beforeCommit: () => void = () => {},
): (group: readonly AppendRequest[], created: number) => Outcome[] {
  const writeAll = db.transaction((group: readonly AppendRequest[], created: number): Outcome[] => {
    const outcomes = group.map((request): Outcome => {
      try {
        return { ok: true, result: applyAppend(statements, request, created) };
      } catch (error) {
        if (isOwnRefusal(error)) return { ok: false, error };
        throw error;
      }
    });
    beforeCommit();
    return outcomes;
  });
  return (group, created) => writeAll.immediate(group, created);
}

export class GroupCommitWriter implements AppendWriter {
  private queue: Pending[] = [];
  private scheduled = false;
  private readonly counters: GroupCommitStats = { appends: 0, transactions: 0 };
  private readonly writeGroup: (group: readonly AppendRequest[], created: number) => Outcome[];
  private readonly writeProbe: () => void;

  constructor(private readonly options: GroupCommitOptions) {
    this.writeGroup = groupTransaction(options.db, options.statements);
    this.writeProbe = writeProbe(options.db);
  }

  append(request: AppendRequest): Promise<AppendResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ request, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        // setImmediate runs after the poll phase: every request handled in this turn joins the group.
        setImmediate(() => this.flush());
      }
    });
  }

  async probe(): Promise<void> {
    guardSqlite(this.writeProbe, eventStoreUnavailable);
  }

  pragma(): void {
    // written on this thread's connection, which the store has set already
  }

  async close(): Promise<void> {
    this.flush();
  }

  stats(): GroupCommitStats {
    return { ...this.counters };
  }

  pending(): number {
    return this.queue.length;
  }

  /** Writes everything queued; called by the timer and by close(). */
  private flush(): void {
    this.scheduled = false;
    while (this.queue.length > 0) {
      const group = this.queue.splice(0, this.options.maxGroupSize);
      this.writeAndSettle(group);
    }
  }

  private writeAndSettle(group: Pending[]): void {
    this.counters.transactions += 1;
    this.counters.appends += group.length;
    let outcomes: Outcome[];
    try {
      outcomes = this.writeGroup(
        group.map((p) => p.request),
        this.options.now(),
      );
    } catch (error) {
      const failure = toStoreError(error);
      for (const p of group) p.reject(failure);
      return;
    }
    group.forEach((p, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) p.resolve(outcome.result);
      else p.reject(outcome.error);
    });
    if (outcomes.some((o) => o.ok)) this.options.onCommit();
  }
}

export function toStoreError(error: unknown): unknown {
  const code = unavailableCode(error);
  return code === undefined ? error : eventStoreUnavailable(code, error);
}

/** the port's EventStoreUnavailable for a SQLite code of `unavailable.ts` */
export const eventStoreUnavailable = (code: string, cause: unknown): EventStoreUnavailable =>
  new EventStoreUnavailable(
    code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')
      ? `the event store file is locked by another writer (${code})`
      : `the event store file cannot be written or read now (${code})`,
    { cause },
  );
