import { constants, PerformanceObserver } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect } from 'chai';
import { createMetrics } from '../../src/metrics/metrics.js';
import { eventually } from '../support/eventually.js';

setFlagsFromString('--expose-gc');
/** a full (mark-compact) collection of this thread's isolate, on demand */
const collect = runInNewContext('gc') as () => void;

/** nodejs_gc_mark_compact_total as a registry exposes it */
async function scraped(metrics: ReturnType<typeof createMetrics>): Promise<number> {
  const { body } = await metrics.text();
  const line = body.split('\n').find((l) => l.startsWith('nodejs_gc_mark_compact_total '));
  if (line === undefined) throw new Error('no nodejs_gc_mark_compact_total sample');
  return Number(line.split(' ')[1]);
}

describe('nodejs_gc_mark_compact_total', () => {
  it('counts every mark-compact of the main isolate, several in one batch of gc entries included', async () => {
    const metrics = createMetrics();
    const before = await scraped(metrics);
    // an observer of its own says how many full collections happened meanwhile (the test's, and any V8 chose)
    let seen = 0;
    const witness = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) if ((entry.detail as { kind?: number }).kind === constants.NODE_PERFORMANCE_GC_MAJOR) seen += 1;
    });
    witness.observe({ entryTypes: ['gc'] });
    try {
      // three in a row, before either observer runs: they reach it as one batch
      collect();
      collect();
      collect();
      await eventually(
        () => seen,
        (n) => n >= 3,
        'the three collections observed',
      );
      const counted = await eventually(
        async () => (await scraped(metrics)) - before,
        (n) => n === seen,
        'the counter matches the collections observed',
      );
      expect(counted).to.be.at.least(3);
    } finally {
      witness.disconnect();
    }
  });
});
