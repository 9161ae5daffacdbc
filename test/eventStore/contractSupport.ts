/**
 * Helpers of the event store contract suite. Every test writes to streams whose names carry a fresh
 * tag and reads `$all` from the head it saw first, so the suite also runs against a shared server
 * that already holds events (a real EventStoreDB).
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { streamName, WrongExpectedRevision, type EventStore, type NewEvent, type RecordedEvent, type StreamName } from '../../src/ports/eventStore.js';

export interface ContractOptions {
  /** true when each factory call gives an empty store, so emptiness itself can be asserted */
  freshStore: boolean;
}

export type StoreFactory = () => Promise<EventStore>;

/** Stream names unique to one test: `streams('a', 'b')` */
export function testStreams<const K extends string>(...keys: K[]): Record<K, StreamName> {
  const tag = randomUUID().replaceAll('-', '').slice(0, 12);
  return Object.fromEntries(keys.map((k) => [k, streamName(`contract${tag}-${k}`)])) as Record<K, StreamName>;
}

export const metadata = { correlationId: 'req-1', causationId: 'cmd-1', schemaVersion: 1 };

export function newEvent(type: string, data: unknown = { type }, id: string = randomUUID()): NewEvent {
  return { id, type, data, metadata };
}

export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

/** `stream:revision:type` of each event: one readable value to compare exactly */
export const summary = (events: RecordedEvent[]) => events.map((e) => `${e.streamName}:${e.revision}:${e.type}`);

export const inStreams = (streams: Record<string, StreamName>) => {
  const names = new Set<string>(Object.values(streams));
  return (e: RecordedEvent) => names.has(e.streamName);
};

/** Reads the next `count` events that satisfy `keep` from a subscription's iterator. */
export async function nextEvents(iterator: AsyncIterator<RecordedEvent>, count: number, keep: (e: RecordedEvent) => boolean): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  while (out.length < count) {
    const step = await iterator.next();
    if (step.done) throw new Error(`subscription ended after ${out.length} of ${count} events`);
    if (keep(step.value)) out.push(step.value);
  }
  return out;
}

export async function expectConflict(
  promise: Promise<unknown>,
  expected: { stream: StreamName; expected: WrongExpectedRevision['expected']; actual: bigint | 'no_stream' },
): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).to.be.instanceOf(WrongExpectedRevision);
  const conflict = error as WrongExpectedRevision;
  expect({ stream: conflict.stream, expected: conflict.expected, actual: conflict.actual }).to.deep.equal(expected);
}

export const isAscending = (values: bigint[]) => values.every((v, i) => i === 0 || v > values[i - 1]!);

export async function readStreamOf(store: EventStore, stream: StreamName): Promise<RecordedEvent[]> {
  return collect(store.readStream(stream));
}
