import type { RecordedEvent } from '../src/ports/eventStore.js';

/**
 * Documents a slice of a batch may touch, about: committing that many is a few milliseconds of
 * store work, so the runner gives the event loop back between slices and queries keep being
 * answered while it applies a batch of large events (nested indexes of 1000 items each, bundle plans).
 */
export const SLICE_WEIGHT = 1000;

/**
 * How many documents an event may touch, from its recorded data without parsing it: one, plus the
 * length of every list it carries (the items of a bundle plan or of a nested index).
 */
export function weightOf(recorded: RecordedEvent): number {
  let weight = 1;
  if (typeof recorded.data === 'object' && recorded.data !== null) {
    for (const value of Object.values(recorded.data)) if (Array.isArray(value)) weight += value.length;
  }
  return weight;
}

/**
 * A batch cut, in order, into slices of at most `maxWeight` (an event heavier than that is a slice of
 * its own). Each slice is committed with its checkpoint, so a replay after any of them changes nothing.
 */
export function* slices(batch: readonly RecordedEvent[], maxWeight = SLICE_WEIGHT): Generator<RecordedEvent[]> {
  let slice: RecordedEvent[] = [];
  let weight = 0;
  for (const recorded of batch) {
    const w = weightOf(recorded);
    if (slice.length > 0 && weight + w > maxWeight) {
      yield slice;
      slice = [];
      weight = 0;
    }
    slice.push(recorded);
    weight += w;
  }
  if (slice.length > 0) yield slice;
}
