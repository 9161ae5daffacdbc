/**
 * Event store port. Adapters: SQLite (embedded, group commit) and EventStoreDB.
 *
 * Positions are opaque, strictly increasing bigints over `$all` (SQLite: the global sequence;
 * EventStoreDB: the commit position, a byte offset in its transaction log). Revisions count from 0
 * within a stream. The distance between two positions is no number of events: count them with
 * `countEventsAfter`.
 */

export type StreamName = string & { readonly __brand: 'StreamName' };
export const streamName = (s: string) => s as StreamName;

/** `no_stream`: the stream must not exist; `stream_exists`: it must; a bigint: its last revision must be that. */
export type ExpectedRevision = 'no_stream' | 'stream_exists' | 'any' | bigint;

export interface EventMetadata {
  correlationId: string;
  causationId?: string;
  schemaVersion: number;
  clientAddress?: string;
  userAgent?: string;
}

export interface NewEvent {
  /** uuid; deterministic where a retry could re-append, so the store stores it once */
  id: string;
  type: string;
  data: unknown;
  metadata: EventMetadata;
}

export interface RecordedEvent {
  id: string;
  type: string;
  data: unknown;
  metadata: EventMetadata;
  streamName: StreamName;
  revision: bigint;
  position: bigint;
  /** ms since the epoch when the store recorded it */
  created: number;
}

export interface AppendResult {
  /** revision of the last event of the stream after the append */
  nextRevision: bigint;
  /** position of the last event appended (or of the existing one when deduplicated) */
  position: bigint;
}

export interface ReadStreamOptions {
  fromRevision?: bigint;
  maxCount?: number;
}

export interface ReadAllOptions {
  /** exclusive: events with a position strictly greater than this; omit to start at the beginning */
  after?: bigint;
  maxCount?: number;
}

export interface Subscription extends AsyncIterable<RecordedEvent> {
  close(): Promise<void>;
}

export interface EventStore {
  append(stream: StreamName, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult>;
  /** events of one stream in revision order; empty when the stream does not exist */
  readStream(stream: StreamName, options?: ReadStreamOptions): AsyncIterable<RecordedEvent>;
  /** all events in position order (system events of the engine excluded) */
  readAll(options?: ReadAllOptions): AsyncIterable<RecordedEvent>;
  /** catch-up from `after` (exclusive), then live, until closed */
  subscribeToAll(options?: { after?: bigint }): Subscription;
  /** position of the newest event, 0n when empty (used to wait for projections) */
  headPosition(): Promise<bigint>;
  /**
   * How many events have a position strictly greater than `after`, counting no further than
   * `limit`: min(count, limit). Lag is measured with it, in events; the limit keeps a far-behind
   * reader's question cheap (EventStoreDB counts by reading, SQLite by an index scan).
   */
  countEventsAfter(after: bigint, limit: number): Promise<number>;
  /**
   * A real write no reader sees (a row of a table of the store's own, never an event), as an append
   * would make it: resolves once durable, rejects (EventStoreUnavailable) when the store cannot take
   * writes now (disk full, read-only). For readiness. Absent where the engine has no such write
   * (EventStoreDB: every write is an event in `$all`).
   */
  probeWrite?(): Promise<void>;
  close(): Promise<void>;
}

export class WrongExpectedRevision extends Error {
  override readonly name = 'WrongExpectedRevision';
  constructor(
    readonly stream: StreamName,
    readonly expected: ExpectedRevision,
    /** the stream's actual last revision, or `no_stream` */
    readonly actual: bigint | 'no_stream',
  ) {
    super(`wrong expected revision on ${stream}: expected ${String(expected)}, actual ${String(actual)}`);
  }
}

/** The store cannot be reached or refused to work; the request may be retried. */
export class EventStoreUnavailable extends Error {
  override readonly name = 'EventStoreUnavailable';
}
