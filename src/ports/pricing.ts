/** Price of storing an item of `bytes` bytes, in winc. The next issue adds real sources. */
export interface Pricing {
  priceOf(bytes: number): Promise<bigint>;
}

/** Every upload free: the placeholder until accounts and prices exist. */
export const freePricing: Pricing = { priceOf: async () => 0n };
