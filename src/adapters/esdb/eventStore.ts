/**
 * The scale-out event store: EventStoreDB (or KurrentDB) through `@eventstore/db-client` 6.x.
 *
 * Positions are commit positions. Events appended through gRPC are self-committed, so each has its
 * own commit position (equal to its prepare position) and `{ commit: p, prepare: p }` addresses it.
 * System events (types starting with `$`) are never shown: reads skip them, subscriptions filter
 * them on the server.
 */
import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  excludeSystemEvents,
  FORWARDS,
  START,
  StreamNotFoundError,
  type AllStreamResolvedEvent,
  type AppendExpectedRevision,
  type Position,
  type ResolvedEvent,
} from '@eventstore/db-client';
import {
  EventStoreUnavailable,
  WrongExpectedRevision,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type StreamName,
  type Subscription,
} from '../../ports/eventStore.js';
import { toAppendError, toPortError } from './errors.js';
import { toEventData, toRecordedEvent } from './recordedEvent.js';
import { EsdbSubscription } from './subscription.js';

/** Builds a client; it connects lazily, on the first call. `esdb://host:2113?tls=false` for a single node. */
export function esdbClientFromConnectionString(connectionString: string): EventStoreDBClient {
  return EventStoreDBClient.connectionString(connectionString);
}

export interface EsdbEventStoreOptions {
  /** events per request when reading `$all` in pages (default 500) */
  pageSize?: number;
}

/** The store owns the client: close() disposes it. */
export function createEsdbEventStore(client: EventStoreDBClient, options: EsdbEventStoreOptions = {}): EventStore {
  return new EsdbEventStore(client, options.pageSize ?? 500);
}

const exactPosition = (p: bigint): Position => ({ commit: p, prepare: p });

class EsdbEventStore implements EventStore {
  private readonly subscriptions = new Set<EsdbSubscription>();
  private closed = false;

  constructor(
    private readonly client: EventStoreDBClient,
    private readonly pageSize: number,
  ) {}

  async append(stream: StreamName, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    this.assertOpen();
    const data = events.map(toEventData);
    let result;
    try {
      result = await this.client.appendToStream(stream, data, {
        expectedRevision: expected satisfies AppendExpectedRevision,
      });
    } catch (error) {
      // definite (nothing written) or AppendOutcomeUnknown: see errors.ts
      throw toAppendError(error, stream, expected);
    }
    // Only with `throwOnAppendFailure=false` in the connection string does a conflict come back as a
    // value, and then its revision cannot be trusted: client 6.2.1's batchAppend answers
    // `BigInt(hasCurrentStreamRevision())`, so 1n for any stream that exists. Ask the stream instead.
    if (!result.success) throw new WrongExpectedRevision(stream, expected, await this.lastRevisionOf(stream));
    const position = result.position?.commit ?? (await this.positionOf(stream, result.nextExpectedRevision));
    return { nextRevision: result.nextExpectedRevision, position };
  }

  async *readStream(stream: StreamName, options: ReadStreamOptions = {}): AsyncIterable<RecordedEvent> {
    let remaining = options.maxCount ?? Number.POSITIVE_INFINITY;
    let from: bigint | typeof START = options.fromRevision ?? START;
    while (remaining > 0) {
      // Paged with a count and each page read to its end, as readAll: a consumer that stops early
      // leaves no call half-read. The client's dispose() waits for every call it knows of to finish,
      // and a cancelled call whose answer had already come in never does: close() would never return.
      const count = Math.min(this.pageSize, remaining);
      const page = await this.readStreamPage(stream, from, count);
      for (const resolved of page) {
        const event = toRecordedEvent(resolved);
        if (event) yield event;
      }
      remaining -= page.length;
      const last = page[page.length - 1]?.event?.revision;
      if (page.length < count || last === undefined) return;
      from = last + 1n;
    }
  }

  async *readAll(options: ReadAllOptions = {}): AsyncIterable<RecordedEvent> {
    let remaining = options.maxCount ?? Number.POSITIVE_INFINITY;
    let from: Position | typeof START = options.after === undefined ? START : exactPosition(options.after);
    // readAll's fromPosition is inclusive; the port's `after` is not.
    let skipUpTo = options.after;
    while (remaining > 0) {
      // Paged with a count, so every gRPC call ends by itself even if the consumer stops early.
      const page = await this.readAllPage(from, FORWARDS, this.pageSize);
      for (const resolved of page) {
        const event = toRecordedEvent(resolved);
        if (event === undefined || (skipUpTo !== undefined && event.position <= skipUpTo)) continue;
        yield event;
        remaining -= 1;
        if (remaining === 0) return;
      }
      const last = page[page.length - 1]?.event?.position;
      if (page.length < this.pageSize || last === undefined) return;
      from = last;
      skipUpTo = last.commit;
    }
  }

  subscribeToAll(options: { after?: bigint } = {}): Subscription {
    this.assertOpen();
    const source = this.client.subscribeToAll({
      fromPosition: options.after === undefined ? START : exactPosition(options.after),
      filter: excludeSystemEvents(),
    });
    const subscription = new EsdbSubscription(source, options.after, (s) => this.subscriptions.delete(s));
    this.subscriptions.add(subscription);
    return subscription;
  }

  async headPosition(): Promise<bigint> {
    // The newest record is often a system event (stats are written every few seconds): skip those.
    let from: Position | typeof END = END;
    for (;;) {
      const page = await this.readAllPage(from, BACKWARDS, 32);
      for (const resolved of page) {
        const event = toRecordedEvent(resolved);
        if (event) return event.position;
      }
      const last = page[page.length - 1]?.event?.position;
      if (page.length < 32 || last === undefined) return 0n;
      from = last;
    }
  }

  /**
   * Counted by reading `$all` forwards from `after` (in pages, system events left out): commit
   * positions are byte offsets in the transaction log, so no arithmetic on them counts events.
   */
  async countEventsAfter(after: bigint, limit: number): Promise<number> {
    let count = 0;
    if (limit <= 0) return count;
    for await (const _ of this.readAll({ after, maxCount: limit })) count += 1;
    return count;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.close()));
    await this.client.dispose();
  }

  private async readAllPage(
    from: Position | typeof START | typeof END,
    direction: typeof FORWARDS | typeof BACKWARDS,
    maxCount: number,
  ): Promise<AllStreamResolvedEvent[]> {
    this.assertOpen();
    const page: AllStreamResolvedEvent[] = [];
    try {
      for await (const resolved of this.client.readAll({ fromPosition: from, direction, maxCount })) {
        page.push(resolved);
      }
    } catch (error) {
      throw toPortError(error);
    }
    return page;
  }

  private async readStreamPage(stream: StreamName, from: bigint | typeof START, maxCount: number): Promise<ResolvedEvent[]> {
    this.assertOpen();
    const page: ResolvedEvent[] = [];
    try {
      for await (const resolved of this.client.readStream(stream, { direction: FORWARDS, fromRevision: from, maxCount })) {
        page.push(resolved);
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw toPortError(error);
    }
    return page;
  }

  private assertOpen(): void {
    if (this.closed) throw new EventStoreUnavailable('the EventStoreDB event store is closed');
  }

  /** The revision of the stream's last event, or `no_stream`. */
  private async lastRevisionOf(stream: StreamName): Promise<bigint | 'no_stream'> {
    const read = this.client.readStream(stream, { direction: BACKWARDS, fromRevision: END, maxCount: 1 });
    let last: bigint | 'no_stream' = 'no_stream';
    try {
      // Read to the end (one event) rather than return early: an unfinished gRPC call stays open.
      for await (const resolved of read) last = resolved.event?.revision ?? last;
    } catch (error) {
      if (error instanceof StreamNotFoundError) return 'no_stream';
      throw toPortError(error);
    }
    return last;
  }

  /** Older servers answer an idempotent (deduplicated) append without a position. */
  private async positionOf(stream: StreamName, revision: bigint): Promise<bigint> {
    for await (const event of this.readStream(stream, { fromRevision: revision, maxCount: 1 })) return event.position;
    return 0n;
  }
}
