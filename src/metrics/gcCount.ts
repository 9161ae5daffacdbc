import { constants, PerformanceObserver } from 'node:perf_hooks';

/**
 * Mark-compact collections of this thread's isolate (V8's full collections), counted from a single
 * observer of the thread's `gc` entries, started by the first caller. prom-client's own
 * `nodejs_gc_duration_seconds` looks at the first entry of each batch its observer is handed and so
 * misses collections that come close together, as they do under external memory pressure (a large
 * upload allocating Buffers faster than the young generation frees them): the count that says
 * whether an upload drove the main isolate to full collections has to see every entry.
 */
let markCompacts = 0;
let observer: PerformanceObserver | undefined;

export function markCompactCount(): number {
  if (!observer) {
    observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries())
        if ((entry.detail as { kind?: number } | undefined)?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) markCompacts += 1;
    });
    // an observer of gc entries holds no handle: it never keeps a process alive
    observer.observe({ entryTypes: ['gc'] });
  }
  return markCompacts;
}
