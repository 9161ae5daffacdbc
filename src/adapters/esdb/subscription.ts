/**
 * The port's Subscription over the client's catch-up subscription to `$all`, consumed with
 * `for await` (an async 'data' listener would not be awaited, and checkpoints would overtake work).
 *
 * EventStoreDB starts a subscription strictly after the given position; events at or before it are
 * still dropped here so the port's "exclusive" promise does not rest on one server version.
 */
import type { AllStreamSubscription } from '@eventstore/db-client';
import { EventStoreUnavailable, type RecordedEvent, type Subscription } from '../../ports/eventStore.js';
import { toPortError } from './errors.js';
import { toRecordedEvent } from './recordedEvent.js';

export class EsdbSubscription implements Subscription {
  private closed = false;

  constructor(
    private readonly source: AllStreamSubscription,
    private readonly after: bigint | undefined,
    private readonly onClose: (subscription: EsdbSubscription) => void,
  ) {}

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onClose(this);
    await this.source.unsubscribe();
    // Ends a `for await` that is waiting for the next event, whatever the gRPC stream does after cancel.
    this.source.destroy();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<RecordedEvent> {
    try {
      for await (const resolved of this.source) {
        if (this.closed) return;
        const event = toRecordedEvent(resolved);
        if (event === undefined || (this.after !== undefined && event.position <= this.after)) continue;
        yield event;
      }
    } catch (error) {
      // Once closed, the cancellation surfacing as an error is the expected end, not a failure.
      if (this.closed) return;
      throw toPortError(error);
    }
    // A subscription never ends on its own: an end we did not ask for means the server dropped us.
    if (!this.closed) throw new EventStoreUnavailable('EventStoreDB ended the subscription');
  }
}
