import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';

const run = promisify(execFile);

/**
 * `tuneHeap` in a fresh process (it sets V8 flags for the whole process): the mark-compacts a fixed
 * allocation pattern meets afterwards, and the forced ones, counted from the process's `gc` entries.
 * One million small objects alive at a time, twenty million allocated: a factor of 4 lets V8 collect a
 * handful of times, a factor of 1.1 several times as often.
 */
async function afterTuning(growingPercent: number): Promise<{ forced: number; markCompacts: number; gcVisible: boolean }> {
  const script = `
    import { constants, PerformanceObserver } from 'node:perf_hooks';
    import { runInNewContext } from 'node:vm';
    const { tuneHeap } = await import('./src/heapTuning.js');
    let forced = 0;
    let markCompacts = 0;
    const observer = new PerformanceObserver((list) => {
      for (const { detail } of list.getEntries()) {
        if (detail.kind !== constants.NODE_PERFORMANCE_GC_MAJOR) continue;
        if (detail.flags & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) forced += 1;
        else markCompacts += 1;
      }
    });
    observer.observe({ entryTypes: ['gc'] });
    tuneHeap(${growingPercent});
    let alive = [];
    for (let i = 0; i < 2e7; i++) {
      alive.push({ i, text: 'x' + i });
      if (alive.length > 1e6) alive = [];
    }
    // entries are delivered asynchronously
    await new Promise((resolve) => setTimeout(resolve, 100));
    console.log(JSON.stringify({ forced, markCompacts, gcVisible: typeof globalThis.gc !== 'undefined' || runInNewContext('typeof gc') !== 'undefined' }));
  `;
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: process.cwd() });
  return JSON.parse(stdout) as { forced: number; markCompacts: number; gcVisible: boolean };
}

describe('the heap tuning of the service process (src/heapTuning.ts)', function () {
  this.timeout(120_000);

  it('collects the garbage of the start once, and leaves no `gc` behind, in this context or a new one', async () => {
    const tuned = await afterTuning(0);
    expect({ forced: tuned.forced, gcVisible: tuned.gcVisible }).to.deep.equal({ forced: 1, gcVisible: false });
  });

  it("sets V8's growing factor: 10 % collects several times as often as 300 %", async () => {
    // both factors fixed by the flag, so the counts do not depend on how fast this machine runs (V8's own
    // factor does); without the flag both would be V8's own and equal
    const loose = await afterTuning(300);
    const tight = await afterTuning(10);
    expect(loose.markCompacts).to.be.greaterThan(0);
    expect(tight.markCompacts, `300 %: ${loose.markCompacts}; 10 %: ${tight.markCompacts}`).to.be.at.least(2 * loose.markCompacts);
  });
});
