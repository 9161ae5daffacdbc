import { expect } from 'chai';
import { suite, TARGETS } from '../../scripts/bench/lib/suite.js';
import { median } from '../../scripts/bench/lib/stats.js';

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

  const upload = (ratio: number, ratios?: number[]) => ({ MiBps: 200, seconds: 5, peakRssMiB: 280, ratio, ...(ratios ? { ratios } : {}) });
  const large = { sizeBytes: 1 << 30, trials: 3, baselineMiBps: 240, single: upload(1.1, [1.1, 1.05, 1.2]), multipart: upload(0.91, [0.86, 0.93, 0.91]) };

  it("judges a 1 GiB upload's throughput by the median of its rounds' ratios, each round's ratio in the notes", () => {
    const rows = bench('large-uploads').rows(large, TARGETS.full);
    const multipart = rows.find((r) => r.figure === '1 GiB multi-part: throughput')!;
    expect(multipart.ratio).to.equal(0.91);
    expect(multipart.target).to.deep.equal({ text: 'ratio >= 0.9', met: true });
    expect(multipart.notes).to.equal('median of 3 rounds, each against its own baseline (ratios 0.86, 0.93, 0.91)');
    const oneRound = bench('large-uploads').rows({ ...large, trials: 1, multipart: upload(0.86, [0.86]) }, TARGETS.full);
    expect(oneRound.find((r) => r.figure === '1 GiB multi-part: throughput')!.notes).to.equal(undefined);
  });

  const run = (quick: boolean) => ({ quick, sharedStore: '', sharedStoreReady: false });

  it("notes the status queries' rounds, their load and the CPU each query cost in the service and in the bare server", () => {
    const json = {
      concurrency: 64,
      items: 3000,
      uploadsPerSecond: 50,
      uploadRate: 50,
      uploadClients: 4,
      queriesPerSecond: 6000,
      baselineQueriesPerSecond: 10_000,
      ratio: 0.6,
      ratios: [0.55, 0.6, 0.65],
      errors: 0,
      uploadErrors: 0,
      serviceCpuUsPerQuery: 120.5,
      baselineCpuUsPerQuery: 30.2,
      p50Ms: 5,
      p99Ms: 20,
      baselineP99Ms: 8,
    };
    const [queries] = bench('status-queries').rows(json, TARGETS.full);
    expect(queries!.target).to.deep.equal({ text: 'ratio >= 0.6', met: true });
    expect(queries!.notes).to.equal(
      'median of 3 rounds, each against its own baseline (ratios 0.55, 0.6, 0.65); 64 clients, 3000 items, 50 uploads/s alongside (paced at 50/s); ' +
        "0 errors, 0 upload errors; CPU per query 120.5 µs in the service (the uploads' included), 30.2 µs in the bare server",
    );
  });

  it('runs three rounds of the 1 GiB uploads in a full run, one in a quick run, and one of the 2 GiB uploads', () => {
    expect(bench('large-uploads').args(run(false))).to.deep.equal(['--size', String(1 << 30), '--trials', '3']);
    expect(bench('large-uploads').args(run(true))).to.deep.equal(['--size', String(64 << 20), '--trials', '1']);
    expect(bench('large-uploads-2gib').args(run(false))).to.deep.equal(['--size', String(2 * (1 << 30)), '--trials', '1']);
  });
});

describe('benchmark medians', () => {
  it('takes the middle of an odd count, the upper middle of an even one, and NaN of none, whatever the order', () => {
    expect(median([0.93, 0.86, 0.91])).to.equal(0.91);
    expect(median([4, 1, 3, 2])).to.equal(3);
    expect(median([])).to.be.NaN;
  });
});
