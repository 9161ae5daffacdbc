import { expect } from 'chai';
import { estimateTotal } from '../../projections/rebuildProgress.js';
import { formatEta, progressBar, progressLine, progressReporter } from '../../scripts/lib/progress.js';

describe('rebuild progress: the estimated total', () => {
  it('is the head itself where positions number the events 1..n (SQLite)', () => {
    expect(estimateTotal(5000, 1n, 5000n, 1_000_000n)).to.equal(1_000_000);
  });

  it('scales the events read by the share of the log read where positions are offsets (EventStoreDB)', () => {
    // 1000 events read from offset 10,000 to 209,999: the log up to 1,009,999 holds about 5000
    expect(estimateTotal(1000, 10_000n, 209_999n, 1_009_999n)).to.equal(5000);
  });

  it('is what was read once the head is reached, and never less', () => {
    expect(estimateTotal(1234, 10n, 99_999n, 99_999n)).to.equal(1234);
    expect(estimateTotal(10, 1n, 1000n, 1001n)).to.equal(10);
  });
});

describe('rebuild progress: what an operator sees', () => {
  it('formats the time left as m:ss or h:mm:ss, and ? without a rate', () => {
    expect([formatEta(0), formatEta(7.4), formatEta(125), formatEta(3723), formatEta(Number.NaN)]).to.deep.equal(['0:00', '0:07', '2:05', '1:02:03', '?']);
  });

  it('writes a plain line and a bar', () => {
    expect(progressLine(12_000, 40_000, 8000)).to.equal('12000/40000 events (30.0%), 8000 events/s, ETA 0:04');
    expect(progressBar(12_000, 40_000, 8000, 10)).to.equal('[###-------]  30.0%  12000/40000 events  8000 events/s  ETA 0:04');
  });

  it('redraws one line on a terminal and ends it when finished', () => {
    const written: string[] = [];
    const reporter = progressReporter({ isTTY: true, write: (t: string) => written.push(t) }, { label: 'rebuild' });
    reporter.update(1, 2, 1);
    reporter.update(2, 2, 2);
    reporter.finish();
    expect(written).to.deep.equal([`\rrebuild ${progressBar(1, 2, 1)}\x1b[K`, `\rrebuild ${progressBar(2, 2, 2)}\x1b[K`, '\n']);
  });

  it('writes plain lines at the first update, then at most every interval, and the last figures when finished', () => {
    const written: string[] = [];
    let now = 0;
    const reporter = progressReporter({ write: (t: string) => written.push(t) }, { label: 'rebuild', everyMs: 5000, now: () => now });
    for (const [at, done] of [
      [0, 10],
      [4999, 20],
      [5000, 30],
      [6000, 40],
    ] as const) {
      now = at;
      reporter.update(done, 100, 10);
    }
    reporter.finish();
    expect(written).to.deep.equal([10, 30, 40].map((done) => `rebuild: ${progressLine(done, 100, 10)}\n`));
  });
});
