import { match } from 'ts-pattern';
import type { Pricing } from '../../ports/pricing.js';
import { createFixedPricing } from './fixedPricing.js';
import { withFreeLimit } from './freeLimit.js';
import { createGatewayPricing } from './gatewayPricing.js';

export interface PricingConfig {
  source: 'fixed' | 'gateway';
  /** the fixed source's rate; unused by the gateway source */
  wincPerByte: bigint;
  /** the gateway source's margin over the network price; unused by the fixed source */
  marginPercent: number;
  gatewayUrl: string;
  freeUploadLimitBytes: number;
  log?: (message: string, error?: unknown) => void;
  /** the gateway source's fetch (metrics count its failures) */
  fetch?: typeof fetch;
}

/** The configured price source behind the free limit: what the upload path is given. */
export function createPricingFromConfig(config: PricingConfig): Pricing {
  const source = match(config.source)
    .with('fixed', () => createFixedPricing({ wincPerByte: config.wincPerByte }))
    .with('gateway', () =>
      createGatewayPricing({
        gatewayUrl: config.gatewayUrl,
        marginPercent: config.marginPercent,
        log: config.log,
        ...(config.fetch ? { fetch: config.fetch } : {}),
      }),
    )
    .exhaustive();
  return withFreeLimit(source, config.freeUploadLimitBytes);
}
