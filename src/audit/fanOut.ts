/**
 * Hands every value of one source to several consumers, each reading its own async iterable, at the
 * pace of the slowest: the source is read once, and at most `buffer` values wait per consumer, so
 * memory stays bounded whatever the source's length. A consumer may stop early (the values it does
 * not take are dropped for it). When a consumer or the source fails, the others see their iterables
 * end and the first error is thrown once every consumer has returned.
 */
export async function fanOut<T>(source: AsyncIterable<T>, consumers: readonly ((values: AsyncIterable<T>) => Promise<void>)[], buffer = 256): Promise<void> {
  const channels = consumers.map(() => new Channel<T>(buffer));
  let failure: { error: unknown } | undefined;
  const runs = consumers.map((consume, i) => {
    const channel = channels[i]!;
    return consume(channel)
      .catch((error: unknown) => {
        failure ??= { error };
      })
      .finally(() => channel.stop());
  });
  try {
    for await (const value of source) {
      if (failure) break;
      for (const channel of channels) {
        const full = channel.offer(value);
        if (full) await full;
      }
    }
  } catch (error) {
    failure ??= { error };
  } finally {
    for (const channel of channels) channel.close();
  }
  await Promise.all(runs);
  if (failure) throw failure.error;
}

/** A bounded queue between the feeding loop and one consumer. */
class Channel<T> implements AsyncIterable<T> {
  private readonly queue: T[] = [];
  private head = 0;
  private closed = false;
  /** the consumer returned: nothing more is kept for it */
  private stopped = false;
  private wakeReader: (() => void) | undefined;
  private wakeWriter: (() => void) | undefined;

  constructor(private readonly capacity: number) {}

  /** queues `value`; a promise when the queue was full, resolving once the value is in */
  offer(value: T): Promise<void> | undefined {
    if (this.stopped) return undefined;
    if (this.queue.length - this.head < this.capacity) {
      this.queue.push(value);
      this.wake('reader');
      return undefined;
    }
    return new Promise<void>((resolve) => {
      this.wakeWriter = resolve;
    }).then(() => this.offer(value));
  }

  close(): void {
    this.closed = true;
    this.wake('reader');
  }

  stop(): void {
    this.stopped = true;
    this.queue.length = 0;
    this.head = 0;
    this.wake('writer');
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    try {
      for (;;) {
        if (this.head < this.queue.length) {
          const value = this.queue[this.head++] as T;
          // compact now and then rather than shift() per value
          if (this.head >= this.capacity) {
            this.queue.splice(0, this.head);
            this.head = 0;
          }
          this.wake('writer');
          yield value;
          continue;
        }
        if (this.closed || this.stopped) return;
        await new Promise<void>((resolve) => {
          this.wakeReader = resolve;
        });
      }
    } finally {
      // a consumer that leaves its loop early must not hold the others back
      this.stop();
    }
  }

  private wake(who: 'reader' | 'writer'): void {
    const wake = who === 'reader' ? this.wakeReader : this.wakeWriter;
    if (who === 'reader') this.wakeReader = undefined;
    else this.wakeWriter = undefined;
    wake?.();
  }
}
