/**
 * Group commit in a worker thread, so the event loop never waits on the disk: the main thread queues
 * the appends of one turn and posts them as one group; the worker (eventStoreWriterWorker.ts) writes
 * the group in one transaction and answers after COMMIT, and only then do the appends' promises
 * settle, so an answered append is on disk as before. While a group is in the worker, the appends that
 * arrive form the next one (at most `maxGroupSize` each), posted as soon as the answer comes back.
 *
 * A worker that dies fails everything it was given: a group it held with AppendOutcomeUnknown (it may
 * have died after its COMMIT), the appends still queued here and any probe with EventStoreUnavailable,
 * as is a group given to a worker that died before its connection was open (SQLite's code as the
 * cause, when that was the reason); the next append starts a new worker, which is given the pragmas
 * set so far.
 */
import type { Worker } from 'node:worker_threads';
import { AppendOutcomeUnknown, EventStoreUnavailable, type AppendResult } from '../../ports/eventStore.js';
import type { AppendRequest } from './eventStoreAppend.js';
import { eventStoreUnavailable, type AppendWriter, type GroupCommitStats } from './eventStoreGroupCommit.js';
import { fromWire, type FromWriter, type ToWriter, type WriterData } from './eventStoreWriterProtocol.js';
import { startWriterThread } from './eventStoreWriterThread.js';
import { unavailableCode } from './unavailable.js';

interface Pending {
  request: AppendRequest;
  /** when it was queued (performance.now()): a group is held at most groupWait.ms from its oldest */
  at: number;
  resolve(result: AppendResult): void;
  reject(error: unknown): void;
}

interface Waiting {
  resolve(): void;
  reject(error: unknown): void;
}

export interface WorkerWriterOptions {
  path: string;
  busyTimeoutMs: number;
  maxGroupSize: number;
  now: () => number;
  /** called after each commit that stored events, to wake live subscriptions */
  onCommit: () => void;
  /** starts the writer thread (default: startWriterThread, the worker of eventStoreWriterWorker.ts) */
  startWriter?: (data: WriterData) => Worker;
  /**
   * Group commit with a commit delay (as PostgreSQL's commit_delay, which waits only when other
   * transactions are active: commit_siblings): a group is held for others to join it only while
   * `appendsComing()` says appends are on their way (e.g. receipts being signed, each followed by
   * its item's append), and at most `ms` from its oldest append. An append nobody follows is
   * written at once, as without a delay; a stream of appends is written in fewer, larger
   * transactions, each one an fsync and a wake-up of every subscription. Default: no delay.
   */
  groupWait?: { ms: number; appendsComing: () => number };
}

export class WorkerGroupCommitWriter implements AppendWriter {
  private queue: Pending[] = [];
  private scheduled = false;
  private inFlight: { id: number; group: Pending[] } | undefined;
  private readonly probes = new Map<number, Waiting>();
  private nextId = 1;
  /** the last assignment of each pragma, in the order set: what a new worker applies */
  private readonly pragmas = new Map<string, string>();
  private worker: Worker | undefined;
  /** the worker has its connection: what it was given may be written when it dies */
  private ready = false;
  private lastError: unknown;
  private whenIdle: (() => void) | undefined;
  private readonly counters: GroupCommitStats = { appends: 0, transactions: 0 };
  /** a group held for the appends on their way (groupWait) */
  private holding: NodeJS.Timeout | undefined;
  private closing = false;

  constructor(private readonly options: WorkerWriterOptions) {}

  append(request: AppendRequest): Promise<AppendResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ request, at: performance.now(), resolve, reject });
      if (this.inFlight !== undefined) return; // the answer posts the next group
      if (this.holding !== undefined && this.holdFor() > 0) return; // still waiting for the others
      clearTimeout(this.holding);
      this.holding = undefined;
      if (!this.scheduled) {
        this.scheduled = true;
        // setImmediate runs after the poll phase: every request handled in this turn joins the group.
        setImmediate(() => {
          this.scheduled = false;
          this.postOrHold();
        });
      }
    });
  }

  /** how long the queued group may still wait for the appends on their way (0: post it now) */
  private holdFor(): number {
    const wait = this.options.groupWait;
    if (wait === undefined || this.closing || this.queue.length === 0 || this.queue.length >= this.options.maxGroupSize) return 0;
    if (wait.appendsComing() <= 0) return 0;
    return Math.max(0, this.queue[0]!.at + wait.ms - performance.now());
  }

  /** posts the queued group, or holds it (a timer) while others are on their way */
  private postOrHold(): void {
    if (this.inFlight !== undefined || this.holding !== undefined) return;
    const hold = this.holdFor();
    if (hold <= 0) {
      this.sendNext();
      return;
    }
    this.holding = setTimeout(() => {
      this.holding = undefined;
      this.sendNext();
    }, Math.ceil(hold));
  }

  probe(): Promise<void> {
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.probes.set(id, { resolve, reject });
      this.post({ type: 'probe', id });
    });
  }

  pragma(source: string): void {
    const name = source.split('=')[0]!.trim().toLowerCase();
    this.pragmas.delete(name);
    this.pragmas.set(name, source);
    // a worker not started yet is given it when it starts
    this.worker?.postMessage({ type: 'pragma', source } satisfies ToWriter);
  }

  stats(): GroupCommitStats {
    return { ...this.counters };
  }

  pending(): number {
    return this.queue.length + (this.inFlight?.group.length ?? 0);
  }

  async close(): Promise<void> {
    // a group held for others is posted now
    this.closing = true;
    clearTimeout(this.holding);
    this.holding = undefined;
    await new Promise<void>((resolve) => {
      this.whenIdle = resolve;
      this.sendNext();
    });
    const worker = this.worker;
    if (worker === undefined) return;
    worker.ref();
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.postMessage({ type: 'close' } satisfies ToWriter);
    await exited;
  }

  /** posts the queued appends as the next group, unless a group is in the worker already */
  private sendNext(): void {
    if (this.inFlight === undefined && this.queue.length > 0) {
      const group = this.queue.splice(0, this.options.maxGroupSize);
      const id = this.nextId++;
      this.inFlight = { id, group };
      this.counters.transactions += 1;
      this.counters.appends += group.length;
      this.post({ type: 'group', id, requests: group.map((p) => p.request), created: this.options.now() });
    }
    this.checkIdle();
  }

  private post(message: ToWriter): void {
    const worker = this.worker ?? this.start();
    worker.ref();
    worker.postMessage(message);
  }

  private start(): Worker {
    const worker = (this.options.startWriter ?? startWriterThread)({
      path: this.options.path,
      busyTimeoutMs: this.options.busyTimeoutMs,
      pragmas: [...this.pragmas.values()],
    });
    this.lastError = undefined;
    this.ready = false;
    worker.on('message', (message: FromWriter) => this.onMessage(message));
    worker.on('error', (error) => (this.lastError = error));
    worker.on('exit', (code) => this.onExit(worker, code));
    this.worker = worker;
    return worker;
  }

  private onMessage(message: FromWriter): void {
    if (message.type === 'ready') {
      this.ready = true;
      return;
    }
    if (message.type === 'probe') {
      const waiting = this.probes.get(message.id);
      this.probes.delete(message.id);
      if (message.failure === undefined) waiting?.resolve();
      else waiting?.reject(fromWire(message.failure));
    } else if (this.inFlight?.id === message.id) {
      const { group } = this.inFlight;
      this.inFlight = undefined;
      if ('failure' in message) {
        const failure = fromWire(message.failure);
        for (const p of group) p.reject(failure);
      } else {
        group.forEach((p, i) => {
          const outcome = message.outcomes[i]!;
          if (outcome.ok) p.resolve(outcome.result);
          else p.reject(fromWire(outcome.error));
        });
        if (message.outcomes.some((o) => o.ok)) this.options.onCommit();
      }
    }
    this.postOrHold();
  }

  private onExit(worker: Worker, code: number): void {
    if (worker !== this.worker) return;
    this.worker = undefined;
    const cause = this.lastError;
    const sqliteCode = unavailableCode(cause);
    const why = cause instanceof Error ? `: ${cause.message}` : '';
    const reason = `the event store writer stopped (exit code ${code}${why})`;
    // Nothing written: the worker could not open its connection (as a file that cannot be used now),
    // or the appends never reached it.
    const notWritten = () => (sqliteCode !== undefined ? eventStoreUnavailable(sqliteCode, cause) : new EventStoreUnavailable(reason, { cause }));
    const inFlight = this.inFlight?.group ?? [];
    this.inFlight = undefined;
    const queued = this.queue.splice(0);
    const probes = [...this.probes.values()];
    this.probes.clear();
    for (const p of inFlight) p.reject(this.ready ? new AppendOutcomeUnknown(reason, { cause }) : notWritten());
    for (const p of [...queued, ...probes]) p.reject(notWritten());
    this.checkIdle();
  }

  /** nothing in the worker: it need not keep the process alive, and a close() may go on */
  private checkIdle(): void {
    if (this.inFlight !== undefined || this.probes.size > 0) return;
    this.worker?.unref();
    if (this.queue.length === 0) {
      const idle = this.whenIdle;
      this.whenIdle = undefined;
      idle?.();
    }
  }
}
