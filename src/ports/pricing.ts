/**
 * Price of storing an item of `bytes` bytes, in winc. Sources are in src/adapters/pricing (fixed rate,
 * gateway price plus margin, the free limit in front of either). A source that cannot price an item
 * rejects with ServiceUnavailable rather than answering 0.
 */
export interface Pricing {
  priceOf(bytes: number): Promise<bigint>;
}

/** Every upload free: for tests and set-ups without accounts. */
export const freePricing: Pricing = { priceOf: async () => 0n };
