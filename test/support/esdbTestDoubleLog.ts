/**
 * TEST CODE ONLY. The in-memory log behind the EventStoreDB gRPC test double (esdbTestDouble.ts).
 * It is not an event store: no persistence, no limits, no concurrency beyond the JS event loop.
 *
 * The append rules follow EventStoreDB's commit check (IndexWriter.CheckCommit): expected revision,
 * idempotent retries by event id, and "corrupted idempotency" answered as a wrong expected version.
 * Positions are transaction-file offsets: each event is one prepare record whose size on disk is
 * PrepareLogRecord.SizeOnDisk (src/EventStore.Core/TransactionLog/LogRecords/PrepareLogRecord.cs,
 * v24.10.4), so positions grow by about 100 bytes plus the event's data, metadata, stream name and
 * type. Commit = prepare for every event: gRPC writes are self-committed prepares (flags
 * Data | IsCommitted in StorageWriterService.WritePrepares), and AllReader reads each one back at
 * TFPos(prepare.LogPosition, prepare.LogPosition) (src/EventStore.Core/Services/Storage/ReaderIndex/AllReader.cs).
 * Not modelled: the records a fresh database writes first (epochs ...), and the jump to the next
 * 256 MiB chunk when a record does not fit at the end of one.
 *
 * `positions: 'counts'` numbers events 0, 1, 2 instead, for suites that still read positions as
 * event counts (no real server does that).
 */

export interface StoredEvent {
  stream: string;
  revision: bigint;
  id: string;
  type: string;
  contentType: string;
  data: Uint8Array;
  customMetadata: Uint8Array;
  /** .NET ticks (100 ns) since the Unix epoch, as the server sends `created` */
  createdTicks: bigint;
  position: bigint;
}

export type ProposedEvent = Pick<StoredEvent, 'id' | 'type' | 'contentType' | 'data' | 'customMetadata'>;

/** -1 is "no stream", as in the server */
export type Expected = 'any' | 'no_stream' | 'stream_exists' | bigint;

export type AppendOutcome =
  { kind: 'written' | 'idempotent'; lastRevision: bigint; position: bigint | undefined } | { kind: 'wrong_expected_version'; current: bigint };

const NO_STREAM = -1n;

export interface InMemoryLogOptions {
  /** 'log' (default): transaction-file byte offsets, as the server; 'counts': 0, 1, 2 ... */
  positions?: 'log' | 'counts';
  now?: () => number;
}

/** Bytes of a .NET BinaryWriter string: its UTF-8 length as a 7-bit encoded integer, then the bytes. */
function stringSizeWithLengthPrefix(value: string): number {
  const bytes = Buffer.byteLength(value, 'utf8');
  let prefix = 1;
  for (let rest = bytes >>> 7; rest > 0; rest >>>= 7) prefix += 1;
  return prefix + bytes;
}

/**
 * PrepareLogRecord.SizeOnDisk for a LogRecordV1 prepare (src/EventStore.Core/TransactionLog/LogRecords/
 * PrepareLogRecord.cs): length prefix and suffix, type, version, log position, flags, transaction
 * position and offset, expected version, stream id, event id, correlation id, timestamp, event type,
 * data and metadata with their lengths.
 */
export function prepareRecordSize(stream: string, event: Pick<ProposedEvent, 'type' | 'data' | 'customMetadata'>): bigint {
  const fixed = 2 * 4 + 1 + 1 + 8 + 2 + 8 + 4 + 8 + 16 + 16 + 8 + 4 + 4;
  return BigInt(fixed + stringSizeWithLengthPrefix(stream) + stringSizeWithLengthPrefix(event.type) + event.data.length + event.customMetadata.length);
}

export class InMemoryLog {
  readonly all: StoredEvent[] = [];
  private readonly streams = new Map<string, StoredEvent[]>();
  private readonly listeners = new Set<(event: StoredEvent) => void>();
  private nextPosition: bigint;
  private readonly positions: 'log' | 'counts';
  private readonly now: () => number;

  constructor(options: InMemoryLogOptions = {}) {
    this.positions = options.positions ?? 'log';
    this.now = options.now ?? Date.now;
    // A real log starts with the records a fresh node writes (epoch, ...): events never start at 0.
    this.nextPosition = this.positions === 'log' ? 128n : 0n;
  }

  stream(name: string): StoredEvent[] | undefined {
    return this.streams.get(name);
  }

  onAppended(listener: (event: StoredEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  append(stream: string, expected: Expected, proposed: ProposedEvent[]): AppendOutcome {
    const events = this.streams.get(stream) ?? [];
    const current = events.length === 0 ? NO_STREAM : BigInt(events.length - 1);
    const decision = this.check(events, current, expected, proposed);
    if (decision.kind !== 'ok') return decision;
    if (proposed.length === 0) return { kind: 'written', lastRevision: current, position: undefined };

    let position = 0n;
    for (const p of proposed) {
      position = this.nextPosition;
      const event: StoredEvent = {
        ...p,
        stream,
        revision: BigInt(events.length),
        createdTicks: BigInt(this.now()) * 10_000n,
        position,
      };
      this.nextPosition += this.positions === 'log' ? prepareRecordSize(stream, p) : 1n;
      events.push(event);
      this.all.push(event);
    }
    this.streams.set(stream, events);
    for (const e of this.all.slice(-proposed.length)) for (const listener of this.listeners) listener(e);
    return { kind: 'written', lastRevision: BigInt(events.length - 1), position };
  }

  private check(
    events: StoredEvent[],
    current: bigint,
    expected: Expected,
    proposed: ProposedEvent[],
  ): { kind: 'ok' } | Exclude<AppendOutcome, { kind: 'written' }> {
    const wrong = { kind: 'wrong_expected_version', current } as const;
    if (expected === 'stream_exists' && current === NO_STREAM) return wrong;

    if (expected === 'any' || expected === 'stream_exists') {
      const revisions = proposed.map((p) => events.find((e) => e.id === p.id)?.revision);
      if (revisions.length === 0 || revisions[0] === undefined) return { kind: 'ok' };
      if (revisions.some((r) => r === undefined)) return wrong;
      return this.idempotent(events, revisions[revisions.length - 1]!);
    }

    const expectedRevision = expected === 'no_stream' ? NO_STREAM : expected;
    if (expectedRevision > current) return wrong;
    if (expectedRevision === current) return { kind: 'ok' };
    // expected < current: a retry only if the same ids sit right after the expected revision
    if (proposed.length === 0) return wrong;
    const matches = proposed.every((p, i) => events[Number(expectedRevision) + 1 + i]?.id === p.id);
    if (!matches) return wrong;
    return this.idempotent(events, expectedRevision + BigInt(proposed.length));
  }

  private idempotent(events: StoredEvent[], lastRevision: bigint) {
    return { kind: 'idempotent', lastRevision, position: events[Number(lastRevision)]?.position } as const;
  }
}
