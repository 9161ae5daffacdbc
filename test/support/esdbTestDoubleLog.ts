/**
 * TEST CODE ONLY. The in-memory log behind the EventStoreDB gRPC test double (esdbTestDouble.ts).
 * It is not an event store: no persistence, no limits, no concurrency beyond the JS event loop.
 *
 * The append rules follow EventStoreDB's commit check (IndexWriter.CheckCommit): expected revision,
 * idempotent retries by event id, and "corrupted idempotency" answered as a wrong expected version.
 * Positions imitate transaction-file offsets: they grow by each record's size, so they are not
 * consecutive, and commit = prepare for every event, as for self-committed gRPC appends.
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
  | { kind: 'written' | 'idempotent'; lastRevision: bigint; position: bigint | undefined }
  | { kind: 'wrong_expected_version'; current: bigint };

const NO_STREAM = -1n;

export class InMemoryLog {
  readonly all: StoredEvent[] = [];
  private readonly streams = new Map<string, StoredEvent[]>();
  private readonly listeners = new Set<(event: StoredEvent) => void>();
  private nextPosition = 128n;

  constructor(private readonly now: () => number = Date.now) {}

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
      this.nextPosition += 64n + BigInt(p.data.length + p.customMetadata.length + stream.length);
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
