import type { Pricing } from '../../ports/pricing.js';
import { assertByteCount } from './bytes.js';

export interface FixedPricingOptions {
  wincPerByte: bigint;
  /** added to every priced item, whatever its size */
  baseWinc?: bigint;
}

/** The offline price: `baseWinc + bytes × wincPerByte`, in bigint so that no size loses a winc. */
export function createFixedPricing({ wincPerByte, baseWinc = 0n }: FixedPricingOptions): Pricing {
  if (wincPerByte < 0n) throw new RangeError(`negative winc per byte: ${wincPerByte}`);
  if (baseWinc < 0n) throw new RangeError(`negative base winc: ${baseWinc}`);
  return {
    async priceOf(bytes) {
      assertByteCount(bytes);
      return baseWinc + BigInt(bytes) * wincPerByte;
    },
  };
}
