/**
 * One append applied inside an open transaction: the expected-revision check and the idempotent-retry
 * rule, the same as EventStoreDB's.
 *
 * Retry rule: when every event id of the append is already stored in the stream, as consecutive
 * revisions in the same order, and the run starts where the append's expectation says it should
 * (`no_stream`: at 0; revision N: at N+1; `any` / `stream_exists`: anywhere), nothing is stored and the
 * original result is answered (revision and position of the last event of that run). Any other overlap
 * with stored ids is a conflict, as EventStoreDB answers a "corrupted idempotency" with a wrong expected
 * version. This is what lets a client retry a write whose answer it lost.
 */
import { WrongExpectedRevision, type AppendResult, type ExpectedRevision, type StreamName } from '../../ports/eventStore.js';
import type { StoredRef, Statements } from './eventStoreSchema.js';

export interface SerializedEvent {
  id: string;
  type: string;
  data: string;
  metadata: string;
}

export interface AppendRequest {
  stream: StreamName;
  events: SerializedEvent[];
  expected: ExpectedRevision;
}

/** An event id is unique in the whole store; reusing one in another stream is a bug of the caller. */
export class DuplicateEventId extends Error {
  override readonly name = 'DuplicateEventId';
  constructor(
    readonly eventId: string,
    readonly storedIn: string,
  ) {
    super(`event id ${eventId} is already stored in stream ${storedIn}`);
  }
}

type Current = bigint | 'no_stream';

function satisfies(expected: ExpectedRevision, current: Current): boolean {
  if (expected === 'any') return true;
  if (expected === 'no_stream') return current === 'no_stream';
  if (expected === 'stream_exists') return current !== 'no_stream';
  return current === expected;
}

function retryStartsWhereExpected(expected: ExpectedRevision, firstRevision: bigint): boolean {
  if (expected === 'any' || expected === 'stream_exists') return true;
  if (expected === 'no_stream') return firstRevision === 0n;
  return firstRevision === expected + 1n;
}

/** The stored result of an earlier identical append, undefined when none of the ids is stored. */
function earlierResult(s: Statements, req: AppendRequest, current: Current): AppendResult | undefined {
  const stored = req.events.map((e) => s.byEventId(e.id));
  if (stored.every((r) => r === undefined)) return undefined;
  stored.forEach((r, i) => {
    if (r !== undefined && r.stream !== req.stream) throw new DuplicateEventId(req.events[i]!.id, r.stream);
  });
  const first = stored[0];
  const isRun = first !== undefined && stored.every((r, i) => r !== undefined && r.revision === first.revision + BigInt(i));
  if (!isRun || !retryStartsWhereExpected(req.expected, first.revision)) {
    throw new WrongExpectedRevision(req.stream, req.expected, current);
  }
  const last = stored[stored.length - 1] as StoredRef;
  return { nextRevision: last.revision, position: last.position };
}

/**
 * Must run inside a transaction. Every refusal (WrongExpectedRevision, DuplicateEventId) is thrown
 * before the first insert, so a refused append leaves nothing behind and the group goes on.
 */
export function applyAppend(s: Statements, req: AppendRequest, created: number): AppendResult {
  const last = s.lastOfStream(req.stream);
  const current: Current = last === undefined ? 'no_stream' : last.revision;

  const earlier = earlierResult(s, req, current);
  if (earlier !== undefined) return earlier;
  if (!satisfies(req.expected, current)) throw new WrongExpectedRevision(req.stream, req.expected, current);
  // An empty append only checks the expectation, as in EventStoreDB (-1 stands for "no stream").
  if (req.events.length === 0) return { nextRevision: last?.revision ?? -1n, position: last?.position ?? 0n };

  let revision = current === 'no_stream' ? 0n : current + 1n;
  let position = 0n;
  for (const e of req.events) {
    position = s.insert({
      stream: req.stream,
      revision,
      eventId: e.id,
      type: e.type,
      data: e.data,
      metadata: e.metadata,
      created,
    });
    revision += 1n;
  }
  return { nextRevision: revision - 1n, position };
}
