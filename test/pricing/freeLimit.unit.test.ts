import { expect } from 'chai';
import { withFreeLimit } from '../../src/adapters/pricing/freeLimit.js';
import { ServiceUnavailable } from '../../src/domain/errors.js';
import type { Pricing } from '../../src/ports/pricing.js';

describe('free upload limit', () => {
  let asked: number[];
  /** 10 winc a byte, remembering what it was asked */
  const tenPerByte: Pricing = {
    async priceOf(bytes) {
      asked.push(bytes);
      return BigInt(bytes) * 10n;
    },
  };

  beforeEach(() => (asked = []));

  it('makes an item of exactly the limit free without asking the price source', async () => {
    const prices = withFreeLimit(tenPerByte, 517_120);

    expect(await prices.priceOf(517_120)).to.equal(0n);
    expect(await prices.priceOf(0)).to.equal(0n);
    expect(asked).to.deep.equal([]);
  });

  it('prices an item one byte over the limit', async () => {
    expect(await withFreeLimit(tenPerByte, 517_120).priceOf(517_121)).to.equal(5_171_210n);
    expect(asked).to.deep.equal([517_121]);
  });

  it('leaves only empty items free with a limit of 0', async () => {
    const prices = withFreeLimit(tenPerByte, 0);

    expect(await prices.priceOf(0)).to.equal(0n);
    expect(await prices.priceOf(1)).to.equal(10n);
  });

  it('answers free items while the price source is unavailable', async () => {
    const down: Pricing = { priceOf: () => Promise.reject(new ServiceUnavailable('price unavailable: test')) };

    expect(await withFreeLimit(down, 100).priceOf(100)).to.equal(0n);
  });

  it('refuses a limit that is not a byte count', () => {
    expect(() => withFreeLimit(tenPerByte, -1)).to.throw(RangeError);
  });
});
