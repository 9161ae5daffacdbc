/**
 * Event store port. Adapters: SQLite (embedded, group commit) and EventStoreDB.
 *
 * Positions are opaque, strictly increasing bigints over `$all` (SQLite: the global sequence;
 * EventStoreDB: the commit position). Revisions count from 0 within a stream.
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

/**
 * The most bytes one append may carry: EventStoreDB's `MaxAppendSize` default (1 MiB; a server can be
 * configured up to 16 MB, never counted on here). Every adapter refuses more with AppendTooLarge, the
 * embedded store too, so a test run on SQLite catches an append a real server would refuse.
 */
export const MAX_APPEND_BYTES = 1_048_576;

/** An event as the adapters write it: data and metadata as JSON text. */
export interface SerializedEventText {
  type: string;
  data: string;
  metadata: string;
}

/** data and metadata as the adapters serialize them (JSON, written as UTF-8), as the server sizes them */
export const serializeEvent = (event: Pick<NewEvent, 'type' | 'data' | 'metadata'>): SerializedEventText => ({
  type: event.type,
  data: JSON.stringify(event.data ?? null),
  metadata: JSON.stringify(event.metadata),
});

/**
 * One event's size as EventStoreDB counts it against `MaxAppendSize` (server `Data/Event.cs`): bytes of
 * data, plus bytes of metadata, plus twice the type's length (its .NET string length: UTF-16 units, as
 * JavaScript's).
 */
export const serializedSize = (event: SerializedEventText): number =>
  Buffer.byteLength(event.data, 'utf8') + Buffer.byteLength(event.metadata, 'utf8') + 2 * event.type.length;

/** The size of an append, summed over its events: at most MAX_APPEND_BYTES is taken. */
export const appendSize = (events: readonly Pick<NewEvent, 'type' | 'data' | 'metadata'>[]): number =>
  events.reduce((sum, e) => sum + serializedSize(serializeEvent(e)), 0);

/** An append over MAX_APPEND_BYTES: refused whole, nothing written. A bug of the caller, never retried. */
export class AppendTooLarge extends Error {
  override readonly name = 'AppendTooLarge';
  constructor(
    readonly stream: StreamName,
    /** appendSize of the refused append */
    readonly size: number,
    readonly limit: number = MAX_APPEND_BYTES,
  ) {
    super(`append to ${stream} of ${size} bytes is over the limit of ${limit} bytes`);
  }
}

/** The store cannot be reached or refused to work; the request may be retried. */
export class EventStoreUnavailable extends Error {
  override readonly name = 'EventStoreUnavailable';
}
