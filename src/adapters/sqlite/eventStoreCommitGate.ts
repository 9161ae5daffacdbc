/**
 * A test hook: a gate the writer worker waits on inside each write transaction, after its inserts and
 * before COMMIT, as it would wait on a slow fsync. Shared memory (Atomics), so a test holds the worker
 * while the main thread runs freely, and lets it go, or makes it die there, without timing anything.
 * The in-thread writer (`:memory:`) takes no gate: waiting on it would hold the event loop forever.
 */
const CLOSED = 0;
const OPEN = 1;
const CRASH = 2;
/** slot 0: the gate's state; slot 1: how many commits reached the gate */
const STATE = 0;
const ARRIVALS = 1;

/** The test's side. */
export class CommitGate {
  readonly buffer = new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT);
  private readonly cells = new Int32Array(this.buffer);

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
