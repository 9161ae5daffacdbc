import type { EventStore } from '../../src/ports/eventStore.js';

/**
 * `inner` with its appends going through `append` (which may call `inner.append` itself), every other
 * call passed through unchanged: what the test stores that fault appends share.
 */
export function withAppend(inner: EventStore, append: EventStore['append']): EventStore {
  return {
    append,
    readStream: (stream, options) => inner.readStream(stream, options),
    readAll: (options) => inner.readAll(options),
    subscribeToAll: (options) => inner.subscribeToAll(options),
    headPosition: () => inner.headPosition(),
    countEventsAfter: (after, limit) => inner.countEventsAfter(after, limit),
    ...(inner.probeWrite ? { probeWrite: () => inner.probeWrite!() } : {}),
    close: () => inner.close(),
  };
}
