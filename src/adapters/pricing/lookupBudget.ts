import { createLru } from '../../lru.js';
import type { LookupBudget } from '../../ports/pricing.js';

export interface LookupBudgetSettings {
  /** look-ups a client may make at once (the bucket's size); 0: none beyond what is cached */
  burst: number;
  /** look-ups a client regains per minute */
  perMinute: number;
}

export interface LookupBudgets {
  /** the budget of the client keyed `client` (clientKeyOf) */
  of(client: string): LookupBudget;
}

/**
 * Per-client token buckets of gateway price look-ups (issue 34): a price the cache holds is free,
 * but each size it does not costs the gateway a request, so a client sending distinct sizes is held
 * to `burst` at once and `perMinute` after. Time is the monotonic clock's: a step of the wall clock
 * neither refills nor empties a bucket. At most `maxClients` buckets are kept (least recently used
 * dropped first: a client forgotten comes back with a full bucket, as a new one would).
 */
export function createLookupBudgets(
  { burst, perMinute }: LookupBudgetSettings,
  { monotonic = () => performance.now(), maxClients = 10_000 }: { monotonic?: () => number; maxClients?: number } = {},
): LookupBudgets {
  const perMs = perMinute / 60_000;
  const buckets = createLru<string, { tokens: number; at: number }>(maxClients);
  return {
    of: (client) => ({
      take() {
        const t = monotonic();
        const last = buckets.get(client) ?? { tokens: burst, at: t };
        const tokens = Math.min(burst, last.tokens + Math.max(0, t - last.at) * perMs);
        if (tokens >= 1) {
          buckets.set(client, { tokens: tokens - 1, at: t });
          return undefined;
        }
        buckets.set(client, { tokens, at: t });
        // no refill (perMinute 0): a minute, the shortest honest answer
        return perMs > 0 ? Math.max(1, Math.ceil((1 - tokens) / perMs / 1000)) : 60;
      },
    }),
  };
}
