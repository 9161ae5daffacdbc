import { expect } from 'chai';
import { createBridgeHealth } from '../../src/app/bridge/health.js';
import { ReadPositions } from '../../src/app/bridge/work.js';

const gateways = [
  { url: 'https://a.example/ar-io/admin/queue-data-item', host: 'a.example', key: 'k' },
  { url: 'https://b.example/ar-io/admin/queue-data-item', host: 'b.example', key: 'k' },
];

describe('optical bridge health (receipts name a gateway only while it is healthy)', () => {
  let monotonic = 1_000;
  const probed: string[] = [];
  // each gateway answers a probe (an empty array) 400 `Must provide array of data item headers`
  const post = async (url: string) => {
    probed.push(new URL(url).host);
    return 400;
  };
  const health = () => createBridgeHealth({ gateways, windowMs: 10_000, timeoutMs: 1_000, clocks: { monotonic: () => monotonic }, post });
  beforeEach(() => {
    monotonic = 1_000;
    probed.length = 0;
  });

  it('names none before anything was heard, a gateway whose last post succeeded within the window, none after it', () => {
    const h = health();
    expect(h.healthyHosts()).to.deep.equal([]);
    h.record('b.example', true);
    h.record('a.example', true);
    expect(h.healthyHosts()).to.deep.equal(['a.example', 'b.example']);
    h.record('a.example', false);
    expect(h.healthyHosts()).to.deep.equal(['b.example']);
    monotonic += 10_001;
    expect(h.healthyHosts()).to.deep.equal([]);
    h.record('a.example', true);
    expect(h.healthyHosts()).to.deep.equal(['a.example']);
  });

  it('probes idle gateways (400 to an empty array is healthy), but not one whose post failed within the window', async () => {
    const h = health();
    await h.probeIdle();
    expect(probed.sort()).to.deep.equal(['a.example', 'b.example']);
    expect(h.healthyHosts()).to.deep.equal(['a.example', 'b.example']);
    h.record('a.example', false);
    monotonic += 6_000;
    probed.length = 0;
    await h.probeIdle();
    expect(probed).to.deep.equal(['b.example']);
    expect(h.healthyHosts()).to.deep.equal(['b.example']);
    monotonic += 5_000;
    await h.probeIdle();
    expect(h.healthyHosts()).to.deep.equal(['a.example', 'b.example']);
  });
});

describe('optical bridge checkpoint (the last position before the first item not done)', () => {
  it('moves past events with nothing to post, and stops before an event whose items are not all done', () => {
    const p = new ReadPositions(10n);
    expect(p.read(11n, 0)).to.equal(undefined);
    expect(p.checkpoint()).to.equal(11n);
    const a = p.read(12n, 2)!;
    const b = p.read(13n, 1)!;
    p.read(14n, 0);
    expect(p.checkpoint()).to.equal(11n);
    p.finish(b);
    expect(p.checkpoint()).to.equal(11n);
    p.finish(a);
    expect(p.checkpoint()).to.equal(11n);
    p.finish(a);
    expect(p.checkpoint()).to.equal(14n);
    const c = p.read(15n, 1)!;
    p.read(16n, 1);
    p.finish(c);
    expect(p.checkpoint()).to.equal(15n);
  });
});
