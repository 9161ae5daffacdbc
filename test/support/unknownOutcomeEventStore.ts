import { AppendOutcomeUnknown, type EventStore, type StreamName } from '../../src/ports/eventStore.js';
import { withAppend } from './appendWrapped.js';

export type UnknownOutcome =
  /** the append is written, then the caller hears AppendOutcomeUnknown (a deadline passed as the leader committed) */
  | 'written'
  /** the caller hears AppendOutcomeUnknown and nothing is written (the call was cut before it reached the leader) */
  | 'lost';

export interface UnknownOutcomeEventStore {
  store: EventStore;
  /** the next append to a stream `which` names ends with AppendOutcomeUnknown, after `outcome` */
  once(which: (stream: StreamName) => boolean, outcome: UnknownOutcome): void;
}

/**
 * TEST DOUBLE around a real event store (test code only): what EventStoreDB's client does to an
 * append whose deadline passes or whose connection is cut mid-call. The adapter maps those to
 * AppendOutcomeUnknown (src/adapters/esdb/errors.ts, each mapping unit-tested); the events may or
 * may not be in the store, and this double decides which, once.
 */
export function unknownOutcomeEventStore(inner: EventStore): UnknownOutcomeEventStore {
  let armed: { which: (stream: StreamName) => boolean; outcome: UnknownOutcome } | undefined;
  const store = withAppend(inner, async (stream, events, expected) => {
    if (!armed?.which(stream)) return inner.append(stream, events, expected);
    const { outcome } = armed;
    armed = undefined;
    if (outcome === 'written') await inner.append(stream, events, expected);
    throw new AppendOutcomeUnknown('EventStoreDB did not say whether the append was written: 4 DEADLINE_EXCEEDED: Deadline exceeded');
  });
  return { store, once: (which, outcome) => (armed = { which, outcome }) };
}
