import { expect } from 'chai';
import { maxTimeoutSecondsFor, usdcForWinc, wincForUsdc } from '../../src/app/x402/pricing.js';

describe('x402 prices in USDC', () => {
  it('converts winc to USDC atomic units exactly, rounding up against the payer', () => {
    // 1,100,000 winc at 3×10^9 winc per USDC is 366.67 atomic units: 367
    expect(usdcForWinc(1_100_000n, 3_000_000_000n)).to.equal(367n);
    // an exact multiple is not rounded
    expect(usdcForWinc(3_000_000n, 3_000_000_000n)).to.equal(1000n);
    // one winc costs one atomic unit at the least
    expect(usdcForWinc(1n, 10n ** 18n)).to.equal(1n);
    // beyond 2^53: bigint all the way
    expect(usdcForWinc(2n ** 80n + 1n, 7n)).to.equal(((2n ** 80n + 1n) * 10n ** 6n + 6n) / 7n);
  });
  it('costs nothing for a free item, and refuses a rate that is not positive', () => {
    expect(usdcForWinc(0n, 5n)).to.equal(0n);
    expect(() => usdcForWinc(1n, 0n)).to.throw(RangeError);
  });
  it('credits what a payment is worth rounded down, never less than the price it was asked for', () => {
    expect(wincForUsdc(367n, 3_000_000_000n)).to.equal(1_101_000n);
    for (const price of [1n, 999n, 1_100_000n, 123_456_789_012n]) {
      for (const rate of [7n, 3_000_000_000n, 10n ** 18n]) expect(wincForUsdc(usdcForWinc(price, rate), rate) >= price).to.equal(true);
    }
  });
  it("gives the reference's authorization lifetimes by size", () => {
    expect([1, 10 * 1024 * 1024, 10 * 1024 * 1024 + 1, 100 * 1024 * 1024 + 1].map(maxTimeoutSecondsFor)).to.deep.equal([300, 300, 1800, 3600]);
  });
});
