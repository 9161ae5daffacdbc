import { ServiceUnavailable, TooManyRequests } from '../../domain/errors.js';
import { GatewayRequestError } from '../../ports/gatewayErrors.js';
import type { LookupBudget, Pricing } from '../../ports/pricing.js';
import { createArweaveGateway } from '../gateway/arweaveGateway.js';
import { assertByteCount, ceilDiv, chunksOf, CHUNK_SIZE } from './bytes.js';
import { createLru } from '../../lru.js';
import { marginBasisPoints, withMargin } from './margin.js';

export interface GatewayPricingOptions {
  /** origin (optionally with a path prefix) of the Arweave gateway */
  gatewayUrl: string;
  /** added to the gateway's price: 10 for +10 %; precise to a hundredth of a percent */
  marginPercent: number;
  /** how long a fetched price is used without asking again */
  cacheTtlMs?: number;
  /** the longest a price waits on the gateway */
  fetchTimeoutMs?: number;
  /** after a failed request, how long prices come from the fallbacks without asking the gateway */
  retryAfterFailureMs?: number;
  /** distinct sizes (in chunks) whose price is kept */
  maxEntries?: number;
  fetch?: typeof fetch;
  /** the clock of the cache's and the failure window's ages: monotonic (src/clock.ts), so a step of the wall clock neither keeps nor drops a price */
  now?: () => number;
  log?: (message: string, error?: unknown) => void;
}

interface Fetched {
  winston: bigint;
  at: number;
}

/**
 * Prices from the gateway's `GET /price/{bytes}` plus a margin. Prices are cached per chunk count and
 * asked for whole chunks, so nearby sizes share one request. When the gateway fails, a price still
 * comes from the last one fetched for that size, else from the latest one fetched for any size
 * (scaled by chunks), else the upload is refused as Service unavailable. Only a GatewayRequestError
 * is the gateway failing: any other error is ours (a size it cannot be asked for), thrown as it is,
 * with no fallback window opened and nothing logged as the gateway's.
 *
 * A request for a size not cached costs the gateway one: a quote to a client takes it from that
 * client's budget first (`priceOf`'s `budget`), and past it answers TooManyRequests with the
 * budget's Retry-After. A cached price, a request already in flight for the size, and a fallback
 * while the gateway is failing cost nothing.
 */
export function createGatewayPricing({
  gatewayUrl,
  marginPercent,
  cacheTtlMs = 600_000,
  fetchTimeoutMs = 5_000,
  retryAfterFailureMs = 10_000,
  maxEntries = 1_000,
  fetch: fetchFn = fetch,
  now = () => performance.now(),
  log = (message, error) => console.warn(message, ...(error === undefined ? [] : [error])),
}: GatewayPricingOptions): Pricing {
  const basisPoints = marginBasisPoints(marginPercent);
  // the gateway adapter's own price call: one reading of `GET /price/{bytes}` for the bundler and the uploads
  const gateway = createArweaveGateway({ gatewayUrl, timeoutMs: fetchTimeoutMs, fetch: fetchFn });
  // Winston as the gateway answered, before the margin: the fallbacks scale network prices.
  const cache = createLru<number, Fetched>(maxEntries);
  const inFlight = new Map<number, Promise<bigint>>();
  /** kept apart from the cache so that eviction never loses the last basis for extrapolation */
  let latest: { chunks: number; winston: bigint } | undefined;
  /** while set and not past, a gateway just failed: uploads do not each wait fetchTimeoutMs for it */
  let failure: { until: number; reason: string } | undefined;

  async function fetchOrFallBack(chunks: number): Promise<bigint> {
    if (failure && now() < failure.until) return fallBack(chunks, failure.reason, false);
    let winston: bigint;
    try {
      winston = await gateway.price(chunks * CHUNK_SIZE);
    } catch (error) {
      if (!GatewayRequestError.is(error)) throw error;
      const reason = error.message;
      failure = { until: now() + retryAfterFailureMs, reason };
      return fallBack(chunks, reason, true);
    }
    failure = undefined;
    cache.set(chunks, { winston, at: now() });
    // An empty item's price is the network's base fee alone: no rate per chunk to scale.
    if (chunks > 0) latest = { chunks, winston };
    return winston;
  }

  /** `report`: log what was done, once per failed request rather than once per upload */
  function fallBack(chunks: number, reason: string, report: boolean): bigint {
    const stale = cache.get(chunks);
    if (stale) {
      if (report) log(`price not fetched, using the one fetched ${now() - stale.at} ms ago: ${reason}`);
      return stale.winston;
    }
    if (latest) {
      // An empty item counts as one chunk here: a gateway outage must not make anything free.
      const winston = ceilDiv(latest.winston * BigInt(Math.max(chunks, 1)), BigInt(latest.chunks));
      if (report) log(`price not fetched, extrapolated from the price of ${latest.chunks * CHUNK_SIZE} bytes: ${reason}`);
      return winston;
    }
    // the next request to the gateway is made once the failure's pause ends
    const retryAfter = failure ? Math.max(1, Math.ceil((failure.until - now()) / 1000)) : undefined;
    throw new ServiceUnavailable(`price unavailable: ${reason}`, retryAfter);
  }

  /** concurrent misses for one size share one request; a new request is taken from `budget` */
  function shared(chunks: number, budget: LookupBudget | undefined): Promise<bigint> {
    let pending = inFlight.get(chunks);
    if (!pending) {
      const failing = failure && now() < failure.until;
      const retryAfter = failing ? undefined : budget?.take();
      if (retryAfter !== undefined) {
        return Promise.reject(new TooManyRequests(`price look-ups of this client used up: ${chunks} chunks not cached`, retryAfter));
      }
      pending = fetchOrFallBack(chunks).finally(() => inFlight.delete(chunks));
      inFlight.set(chunks, pending);
    }
    return pending;
  }

  return {
    async priceOf(bytes, budget) {
      assertByteCount(bytes);
      const chunks = chunksOf(bytes);
      const cached = cache.get(chunks);
      const winston = cached && now() - cached.at < cacheTtlMs ? cached.winston : await shared(chunks, budget);
      return withMargin(winston, basisPoints);
    },
  };
}
