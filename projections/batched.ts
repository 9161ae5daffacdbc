const IDLE = Symbol('idle');
const idle = () => new Promise<typeof IDLE>((resolve) => setImmediate(() => resolve(IDLE)));

/**
 * Groups what an async source has ready into arrays of at most `max`: a batch ends when the source
 * has nothing more ready this turn of the event loop, so catch-up reads big batches and live
 * traffic gets small, prompt ones.
 */
export async function* batched<T>(source: AsyncIterable<T>, max: number): AsyncGenerator<T[]> {
  const it = source[Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<T>> | undefined;
  try {
    for (;;) {
      const first = await (pending ?? it.next());
      pending = undefined;
      if (first.done) return;
      const batch = [first.value];
      while (batch.length < max) {
        const next = it.next();
        const r = await Promise.race([next, idle()]);
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
