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
 */
import type Database from 'better-sqlite3';
import { EventStoreUnavailable, WrongExpectedRevision, type AppendResult } from '../../ports/eventStore.js';
import { applyAppend, DuplicateEventId, type AppendRequest } from './eventStoreAppend.js';
import type { Statements } from './eventStoreSchema.js';
import { unavailableCode } from './unavailable.js';

interface Pending {
  request: AppendRequest;
  resolve(result: AppendResult): void;
  reject(error: unknown): void;
}

type Outcome = { ok: true; result: AppendResult } | { ok: false; error: unknown };

export interface GroupCommitStats {
  /** append calls written (or refused) by a transaction */
  appends: number;
  /** write transactions committed or attempted */
  transactions: number;
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
const isOwnRefusal = (e: unknown) => WrongExpectedRevision.is(e) || e instanceof DuplicateEventId;

export class GroupCommitWriter {
  private queue: Pending[] = [];
  private scheduled = false;
  private readonly counters: GroupCommitStats = { appends: 0, transactions: 0 };
  private readonly writeGroup: (group: Pending[]) => Outcome[];

  constructor(private readonly options: GroupCommitOptions) {
    const { db, statements, now } = options;
    const writeAll = db.transaction((group: Pending[]): Outcome[] => {
      const created = now();
      return group.map((p): Outcome => {
        try {
          return { ok: true, result: applyAppend(statements, p.request, created) };
        } catch (error) {
          if (isOwnRefusal(error)) return { ok: false, error };
          throw error;
        }
      });
    });
    // IMMEDIATE takes the write lock at BEGIN, so a busy file waits in busy_timeout instead of failing
    // when a read transaction would have to be upgraded.
    this.writeGroup = (group) => writeAll.immediate(group);
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

  /** Writes everything queued; called by the timer and by close(). */
  flush(): void {
    this.scheduled = false;
    while (this.queue.length > 0) {
      const group = this.queue.splice(0, this.options.maxGroupSize);
      this.writeAndSettle(group);
    }
  }

  stats(): GroupCommitStats {
    return { ...this.counters };
  }

  private writeAndSettle(group: Pending[]): void {
    this.counters.transactions += 1;
    this.counters.appends += group.length;
    let outcomes: Outcome[];
    try {
      outcomes = this.writeGroup(group);
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

function toStoreError(error: unknown): unknown {
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
