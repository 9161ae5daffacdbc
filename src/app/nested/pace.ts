import { setImmediate as nextTurn } from 'node:timers/promises';

/** Longest stretch background work keeps the event loop before letting requests in. */
export const SLICE_MS = 10;

/**
 * A checkpoint for long background work: awaited often (per entry, per chunk), it gives the event
 * loop back once `sliceMs` have passed since it last did, so requests wait at most a slice. Awaiting
 * a resolved promise does not do that (microtasks run before any I/O), hence the explicit turn.
 */
export function createPace(sliceMs = SLICE_MS): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < sliceMs) return;
    await nextTurn();
    since = performance.now();
  };
}
