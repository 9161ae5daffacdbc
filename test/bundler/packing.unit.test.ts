import { expect } from 'chai';
import { packBundles, type Queued } from '../../src/domain/bundle/packing.js';

const item = (n: number, size: number, acceptedAt = n): Queued => ({ id: `i${n}`, size, acceptedAt });
const ids = (plans: Queued[][]) => plans.map((p) => p.map((i) => i.id));
const limits = { maxItems: 3, maxBytes: 32 + 3 * 64 + 300, maxWaitMs: 1000 };

describe('bundle packing (first fit)', () => {
  it('holds back a bundle that is neither full nor old enough', () => {
    expect(packBundles([item(1, 10), item(2, 10)], limits, 500)).to.deep.equal([]);
  });

  it('sends a bundle whose oldest item waited the configured time', () => {
    expect(ids(packBundles([item(1, 10, 0), item(2, 10, 900)], limits, 1000))).to.deep.equal([['i1', 'i2']]);
  });

  it('sends a bundle once it holds the maximum count', () => {
    expect(ids(packBundles([item(1, 1), item(2, 1), item(3, 1), item(4, 1)], limits, 10))).to.deep.equal([['i1', 'i2', 'i3']]);
  });

  it('puts an item into the first bundle with room, marking the bundles it skipped as full', () => {
    // 32 + 64 + 250 leaves room for 1 more item of at most 50 bytes (with its 64 bytes of header)
    const plans = packBundles([item(1, 250), item(2, 200), item(3, 40)], limits, 10);
    expect(ids(plans)).to.deep.equal([['i1', 'i3']]);
  });

  it('sends an item too large for any shared bundle alone, at once', () => {
    expect(ids(packBundles([item(1, 10), item(2, 10_000), item(3, 10)], limits, 10))).to.deep.equal([['i2']]);
  });

  it('takes items oldest first, whatever their order in the queue', () => {
    const plans = packBundles([item(3, 1, 30), item(1, 1, 10), item(2, 1, 20)], limits, 10);
    expect(ids(plans)).to.deep.equal([['i1', 'i2', 'i3']]);
  });
});
