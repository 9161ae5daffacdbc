/**
 * TEST SCAFFOLDING for the SQLite event store (test code only): a gate its writer worker waits on
 * inside each write transaction, after its inserts and before COMMIT, as it would wait on a slow
 * fsync. Shared memory (Atomics), so a test holds the worker while the main thread runs freely, and
 * lets it go, or makes it die there, without timing anything. The gate is passed in a writer of the
 * test's own (gatedWriterWorker.ts: the production writer loop with the gate before each COMMIT),
 * which the store starts through its `startWriter` option. The in-thread writer (`:memory:`) takes no
 * gate: waiting on it would hold the event loop forever.
 */
import { Worker } from 'node:worker_threads';
import type { WriterData } from '../../src/adapters/sqlite/eventStoreWriterProtocol.js';

const CLOSED = 0;
const OPEN = 1;
const CRASH = 2;
/** slot 0: the gate's state; slot 1: how many commits reached the gate */
const STATE = 0;
const ARRIVALS = 1;

/** What the gated writer worker is started with: the writer's data and the gate. */
export interface GatedWriterData extends WriterData {
  commitGate: SharedArrayBuffer;
}

/** The test's side. */
export class CommitGate {
  readonly buffer = new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT);
  private readonly cells = new Int32Array(this.buffer);

  /** the store's `startWriter`: a writer worker that waits on this gate before each COMMIT */
  readonly startWriter = (data: WriterData): Worker =>
    new Worker(new URL('./gatedWriterBoot.mjs', import.meta.url), { workerData: { ...data, commitGate: this.buffer } satisfies GatedWriterData, execArgv: [] });

  /** how many transactions have reached the gate so far */
  arrivals(): number {
    return Atomics.load(this.cells, ARRIVALS);
  }

  /** lets the waiting commit (and every later one) through */
  open(): void {
    this.set(OPEN);
  }

  /** holds the next commits at the gate again */
  shut(): void {
    this.set(CLOSED);
  }

  /** the worker waiting at the gate dies there, its transaction not committed; later commits pass */
  crash(): void {
    this.set(CRASH);
  }

  private set(state: number): void {
    Atomics.store(this.cells, STATE, state);
    Atomics.notify(this.cells, STATE);
  }
}

/** The worker's side: blocks this thread while the gate is closed; ends the thread when told to crash. */
export function passCommitGate(buffer: SharedArrayBuffer): void {
  const cells = new Int32Array(buffer);
  Atomics.add(cells, ARRIVALS, 1);
  Atomics.wait(cells, STATE, CLOSED);
  // one crash only: the worker started after this one passes
  if (Atomics.compareExchange(cells, STATE, CRASH, OPEN) === CRASH) process.exit(CRASH_EXIT_CODE);
}

/** the exit code of a worker the gate killed */
export const CRASH_EXIT_CODE = 70;
