import { expect } from 'chai';
import { createPricingFromConfig, type PricingConfig } from '../../src/adapters/pricing/fromConfig.js';
import { flat, startFakePriceGateway, type FakePriceGateway } from './fakePriceGateway.js';

describe('pricing from the configuration', () => {
  let gateway: FakePriceGateway | undefined;
  const base: PricingConfig = {
    source: 'fixed',
    wincPerByte: 1000n,
    marginPercent: 10,
    gatewayUrl: 'http://gateway.invalid',
    freeUploadLimitBytes: 100,
  };

  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
  });

  it('fixed: charges the rate above the free limit, without a margin', async () => {
    const prices = createPricingFromConfig(base);

    expect(await prices.priceOf(100)).to.equal(0n);
    expect(await prices.priceOf(101)).to.equal(101_000n);
  });

  it('gateway: charges the gateway price plus the margin above the free limit', async () => {
    gateway = await startFakePriceGateway(flat('1000'));
    const prices = createPricingFromConfig({ ...base, source: 'gateway', gatewayUrl: gateway.url });

    expect(await prices.priceOf(100)).to.equal(0n);
    expect(await prices.priceOf(101)).to.equal(1100n);
    expect(gateway.requested).to.deep.equal([262_144]);
  });
});
