import type { Pricing } from '../../ports/pricing.js';
import { assertByteCount } from './bytes.js';

/**
 * Items of at most `freeUploadLimitBytes` cost 0, without asking `pricing`: small uploads never wait on
 * (or fail with) a price source.
 */
export function withFreeLimit(pricing: Pricing, freeUploadLimitBytes: number): Pricing {
  assertByteCount(freeUploadLimitBytes);
  return {
    async priceOf(bytes, budget) {
      assertByteCount(bytes);
      return bytes <= freeUploadLimitBytes ? 0n : pricing.priceOf(bytes, budget);
    },
  };
}
