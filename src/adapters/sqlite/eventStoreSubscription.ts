/**
 * A subscription to `$all` on the SQLite store: it reads pages after its last position until a page
 * comes back empty, then sleeps until woken or until the poll interval elapses, and reads again.
 *
 * The same loop serves catch-up and live, so an event can be neither skipped nor delivered twice: the
 * only state is the position of the last event handed out. Appends made through the same instance wake
 * it at once; appends made by another process on the same file are seen at the next poll.
 */
import type { RecordedEvent, Subscription } from '../../ports/eventStore.js';

export interface SubscriptionSource {
  /** events strictly after `after`, in position order; [] once the store is closed */
  readAfter(after: bigint, limit: number): RecordedEvent[];
  remove(subscription: SqliteSubscription): void;
}

export class SqliteSubscription implements Subscription {
  private closed = false;
  private wake: (() => void) | undefined;

  constructor(
    private readonly source: SubscriptionSource,
    private after: bigint,
    private readonly pollIntervalMs: number,
    private readonly pageSize: number,
  ) {}

  /** called by the store after a commit made through it */
  notify(): void {
    this.wake?.();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.source.remove(this);
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<RecordedEvent> {
    while (!this.closed) {
      const page = this.source.readAfter(this.after, this.pageSize);
      if (page.length === 0) {
        await this.sleep();
        continue;
      }
      for (const event of page) {
        if (this.closed) return;
        this.after = event.position;
        yield event;
      }
    }
  }

  private sleep(): Promise<void> {
    // No await between the empty read and setting `wake`, so a commit cannot slip in unnoticed.
    return new Promise((resolve) => {
      const timer = setTimeout(done, this.pollIntervalMs);
      const self = this;
      function done() {
        clearTimeout(timer);
        self.wake = undefined;
        resolve();
      }
      this.wake = done;
    });
  }
}
