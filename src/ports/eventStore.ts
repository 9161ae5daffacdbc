/**
 * Event store port. Adapters: SQLite (embedded, group commit) and EventStoreDB.
 *
 * Positions are opaque, strictly increasing bigints over `$all` (SQLite: the global sequence;
 * EventStoreDB: the commit position, a byte offset in its transaction log). Revisions count from 0
 * within a stream. The distance between two positions is no number of events: count them with
 * `countEventsAfter`.
 */

import { portErrorBrand } from './portError.js';

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

// Errors are told apart with `X.is(error)`, never `instanceof` (see portError.ts). For an append:
// WrongExpectedRevision, EventStoreRefused and a plain EventStoreUnavailable are definite (nothing
// was written); AppendOutcomeUnknown is not (the events may be in the store).

const wrongExpectedRevision = portErrorBrand<WrongExpectedRevision>('WrongExpectedRevision');
const eventStoreUnavailable = portErrorBrand<EventStoreUnavailable>('EventStoreUnavailable');
const appendOutcomeUnknown = portErrorBrand<AppendOutcomeUnknown>('AppendOutcomeUnknown');
const eventStoreRefused = portErrorBrand<EventStoreRefused>('EventStoreRefused');
const appendTooLarge = portErrorBrand<AppendTooLarge>('AppendTooLarge');

/** Definite: the stream's revision was not the expected one, nothing was written. */
export class WrongExpectedRevision extends Error {
  static is = wrongExpectedRevision.is;
  override readonly name = 'WrongExpectedRevision';
  constructor(
    readonly stream: StreamName,
    readonly expected: ExpectedRevision,
    /** the stream's actual last revision, or `no_stream` */
    readonly actual: bigint | 'no_stream',
  ) {
    super(`wrong expected revision on ${stream}: expected ${String(expected)}, actual ${String(actual)}`);
    wrongExpectedRevision.mark(this);
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

/**
 * The store cannot be reached or refused to work; the request may be retried. From an append, this
 * class itself means nothing was written (the store said so, or the call never reached it).
 */
export class EventStoreUnavailable extends Error {
  static is = eventStoreUnavailable.is;
  override readonly name: string = 'EventStoreUnavailable';
  constructor(...args: ConstructorParameters<typeof Error>) {
    super(...args);
    eventStoreUnavailable.mark(this);
  }
}

/**
 * An append whose outcome is not known: the call timed out, was cut or cancelled, or failed in a
 * way the store does not explain, after the request may have reached the store. Its events may be
 * written, now or a moment later. Never undo what an append would have paid for on this error: read
 * the stream back, or leave it to whoever decides later from the stream. An EventStoreUnavailable
 * too (503, retry), so a caller that does not care is unchanged.
 */
export class AppendOutcomeUnknown extends EventStoreUnavailable {
  static override is = appendOutcomeUnknown.is;
  override readonly name: string = 'AppendOutcomeUnknown';
  constructor(...args: ConstructorParameters<typeof Error>) {
    super(...args);
    appendOutcomeUnknown.mark(this);
  }
}

/**
 * Definite, and a retry will not help: the store refused the request itself (an append over its
 * size limit, a deleted stream, access denied, an argument it does not take). Nothing was written.
 */
export class EventStoreRefused extends Error {
  static is = eventStoreRefused.is;
  override readonly name: string = 'EventStoreRefused';
  constructor(
    /** what the store refused it for */
    readonly reason: 'too-large' | 'stream-deleted' | 'access-denied' | 'invalid-request',
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    eventStoreRefused.mark(this);
  }
}

/**
 * The `too-large` refusal as the embedded store makes it, knowing the size: an append over
 * MAX_APPEND_BYTES, refused whole, nothing written (EventStoreDB's own refusal reaches the service as
 * EventStoreRefused `too-large`). A bug of the caller, never retried.
 */
export class AppendTooLarge extends EventStoreRefused {
  static override is = appendTooLarge.is;
  override readonly name = 'AppendTooLarge';
  constructor(
    readonly stream: StreamName,
    /** appendSize of the refused append */
    readonly size: number,
    readonly limit: number = MAX_APPEND_BYTES,
  ) {
    super('too-large', `append to ${stream} of ${size} bytes is over the limit of ${limit} bytes`);
    appendTooLarge.mark(this);
  }
}
