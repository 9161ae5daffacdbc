import { expect } from 'chai';
import { suite, TARGETS } from '../../scripts/bench/lib/suite.js';

const bench = (name: string) => suite.find((b) => b.name === name)!;

describe('npm run bench: targets of the full run and of the quick one', () => {
  const rebuilt = { events: 50_000, projections: 15, eventsPerSecond: 15_000, baselineEventsPerSecond: 150_000, ratio: 0.1, peakRssMiB: 200 };

  it("judges a quick run by the quick targets: a 50,000-event rebuild at 15,000 events/s meets them and misses the full run's", () => {
    const [quick] = bench('rebuild').rows(rebuilt, TARGETS.quick);
    const [full] = bench('rebuild').rows(rebuilt, TARGETS.full);
    expect(quick!.target).to.deep.equal({ text: '>= 10,000 events/s', met: true });
    expect(full!.target).to.deep.equal({ text: '>= 40,000 events/s', met: false });
  });

  it('gives small uploads a target for arweave and the ed25519 types only, 0.75 for arweave in a full run', () => {
    const type = (signatureType: number, ratio: number) => ({
      signatureType,
      name: `t${signatureType}`,
      uploadsPerSecond: 100,
      baselinePerSecond: 100 / ratio,
      ratio,
      p50Ms: 1,
      p99Ms: 2,
      errors: 0,
    });
    const json = { ...type(1, 0.7), concurrency: 64, byType: [type(1, 0.7), type(2, 0.7), type(3, 0.2), type(4, 0.5)] };
    const targets = bench('small-uploads')
      .rows(json, TARGETS.full)
      .map((r) => r.target);
    expect(targets).to.deep.equal([
      { text: 'ratio >= 0.75', met: false },
      { text: 'ratio >= 0.6', met: true },
      undefined,
      { text: 'ratio >= 0.6', met: false },
    ]);
  });
});
