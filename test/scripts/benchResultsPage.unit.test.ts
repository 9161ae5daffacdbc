import { expect } from 'chai';
import { resultsPage, type Row } from '../../scripts/bench/lib/resultsTable.js';

/** The page `npm run bench` writes into docs/benchmark-results.md: facts of the run, the headline, every figure. */
describe('npm run bench: the results page', () => {
  const rows: Row[] = [
    { benchmark: 'rebuild', figure: 'rebuild of 1,000,000 events', value: 62_062, unit: 'events/s', target: { text: '>= 40,000 events/s', met: true } },
    { benchmark: 'read-back', figure: '1 GiB read back', value: 2235, unit: 'MiB/s', ratio: 0.421, target: { text: 'ratio >= 0.7', met: false } },
    {
      benchmark: 'receipt-signing',
      figure: 'receipts signed',
      value: 501,
      unit: 'receipts/s',
      baseline: { value: 260, unit: 'receipts/s', what: 'one thread' },
    },
  ];
  const page = resultsPage(rows, {
    startedAt: new Date('2026-11-28T21:58:00Z'),
    seconds: 925.4,
    quick: false,
    machine: { cpus: 2, model: 'Test CPU', loadAverageAtEnd: [3.2, 2.9, 2.5] },
    commit: 'bc54c75',
    failed: [],
  });

  it('names the date, the machine, the commit measured and how many targets were met', () => {
    expect(page.split('\n').slice(4, 9)).to.deep.equal([
      '- date: 2026-11-28T21:58:00.000Z, 925 s',
      '- machine: 2 cores (Test CPU), load average at the end 3.2 2.9 2.5',
      '- commit: bc54c75',
      '- targets met: 1 of 2',
      '',
    ]);
  });

  it('heads the page with the figures that have a target, a missed one marked, then every figure', () => {
    const headline = page.slice(page.indexOf('## Headline'), page.indexOf('## Every figure'));
    expect(headline.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| benchmark'))).to.deep.equal([
      '| rebuild | rebuild of 1,000,000 events | 62,062 events/s |  | >= 40,000 events/s | yes |',
      '| read-back | 1 GiB read back | 2,235 MiB/s | 0.421 | ratio >= 0.7 | **MISSED** |',
    ]);
    expect(page.slice(page.indexOf('## Every figure'))).to.include('| receipt-signing | receipts signed | 501 receipts/s | 260 receipts/s (one thread) |');
    expect(page).to.include('MISSED targets: read-back: 1 GiB read back (ratio >= 0.7)');
  });
});
