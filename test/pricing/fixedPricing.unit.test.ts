import { expect } from 'chai';
import { createFixedPricing } from '../../src/adapters/pricing/fixedPricing.js';
import { rejectionOf } from './support.js';

describe('fixed pricing', () => {
  it('charges baseWinc plus wincPerByte for every byte', async () => {
    const prices = createFixedPricing({ wincPerByte: 3n, baseWinc: 100n });

    expect(await prices.priceOf(0)).to.equal(100n);
    expect(await prices.priceOf(10)).to.equal(130n);
  });

  it('prices 2 GiB and the largest safe size exactly', async () => {
    expect(await createFixedPricing({ wincPerByte: 1000n }).priceOf(2_147_483_648)).to.equal(2_147_483_648_000n);
    expect(await createFixedPricing({ wincPerByte: 1_000_000_007n }).priceOf(Number.MAX_SAFE_INTEGER)).to.equal(9_007_199_317_791_385_783_186_937n);
  });

  it('refuses a size that is not a byte count', async () => {
    const prices = createFixedPricing({ wincPerByte: 1n });

    for (const bytes of [-1, 0.5, Number.POSITIVE_INFINITY]) {
      expect(await rejectionOf(prices.priceOf(bytes))).to.be.instanceOf(RangeError);
    }
  });

  it('refuses a negative rate or base', () => {
    expect(() => createFixedPricing({ wincPerByte: -1n })).to.throw(RangeError);
    expect(() => createFixedPricing({ wincPerByte: 1n, baseWinc: -1n })).to.throw(RangeError);
  });
});
