const IDLE = Symbol('idle');
const idle = () => new Promise<typeof IDLE>((resolve) => setImmediate(() => resolve(IDLE)));

/** `next`, or IDLE if it has not settled within `ms` */
async function within<T>(next: Promise<T>, ms: number): Promise<T | typeof IDLE> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([next, new Promise<typeof IDLE>((resolve) => (timer = setTimeout(() => resolve(IDLE), Math.ceil(ms))))]);
  } finally {
    clearTimeout(timer);
  }
}

/** Under load, a batch waits for the events on their way, at most `ms` from its first. */
export interface BatchWait {
  ms: number;
  /** whether more events are on their way (the service: receipts being signed, each followed by its item's append) */
  moreComing: () => boolean;
}

/**
 * Groups what an async source has ready into arrays of at most `max`: a batch ends when the source
 * has nothing more ready this turn of the event loop, so catch-up reads big batches and live
 * traffic gets small, prompt ones. With `wait`, a batch that finds nothing more ready while
 * `wait.moreComing()` waits for what comes next, up to `wait.ms` from its first item: under load,
 * fewer and larger batches (each one costs a read of every projection's documents and a commit);
 * an event nobody follows is taken at once.
 */
export async function* batched<T>(source: AsyncIterable<T>, max: number, wait?: BatchWait): AsyncGenerator<T[]> {
  const it = source[Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<T>> | undefined;
  try {
    for (;;) {
      const first = await (pending ?? it.next());
      pending = undefined;
      if (first.done) return;
      const started = performance.now();
      const batch = [first.value];
      while (batch.length < max) {
        const next = it.next();
        let r = await Promise.race([next, idle()]);
        if (r === IDLE && wait !== undefined && wait.ms > 0 && wait.moreComing()) {
          const left = started + wait.ms - performance.now();
          if (left > 0) r = await within(next, left);
        }
        if (r === IDLE) {
          pending = next;
          break;
        }
        if (r.done) {
          yield batch;
          return;
        }
        batch.push(r.value);
      }
      yield batch;
    }
  } finally {
    await it.return?.();
  }
}
