/**
 * Price of storing an item of `bytes` bytes, in winc. Sources are in src/adapters/pricing (fixed rate,
 * gateway price plus margin, the free limit in front of either). A source that cannot price an item
 * rejects with ServiceUnavailable rather than answering 0.
 */
export interface Pricing {
  /**
   * `budget`: the asking client's allowance of requests to a remote price source, for prices quoted
   * to clients (uploads pass none: what they hold is bounded elsewhere). A price that needs a request
   * the budget refuses rejects with TooManyRequests (its Retry-After from the budget).
   */
  priceOf(bytes: number, budget?: LookupBudget): Promise<bigint>;
}

/** a client's allowance of price look-ups (src/adapters/pricing/lookupBudget.ts) */
export interface LookupBudget {
  /** takes one look-up: undefined when allowed, else the seconds until one will be */
  take(): number | undefined;
}
