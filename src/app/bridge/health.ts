import type { Clocks } from '../../clock.js';
import { probeGateway, type BridgeGateway, type Poster } from './post.js';

/**
 * Which bridge gateways are healthy, for receipts' `fastFinalityIndexes`: a gateway is while its
 * last post (the bridge's) or probe (this process's, of a gateway nobody posted to lately) succeeded
 * at most `windowMs` ago on the monotonic clock. Unknown (nothing heard yet) is not healthy: a
 * receipt promises only what is true.
 */
export interface BridgeHealth {
  /** what a post or probe to `host` came to */
  record(host: string, ok: boolean): void;
  /** the hosts healthy now, in the configured order */
  healthyHosts(): string[];
  /**
   * probes each gateway nothing was heard from for half a window, unless its last post failed within
   * the window (a gateway may refuse every post and still pass a probe); resolves when done
   */
  probeIdle(): Promise<void>;
}

export function createBridgeHealth(deps: {
  gateways: readonly BridgeGateway[];
  windowMs: number;
  timeoutMs: number;
  clocks: Pick<Clocks, 'monotonic'>;
  post?: Poster;
}): BridgeHealth {
  const last = new Map<string, { ok: boolean; at: number }>();
  const record = (host: string, ok: boolean) => last.set(host, { ok, at: deps.clocks.monotonic() });
  const heardWithin = (host: string, ms: number) => {
    const seen = last.get(host);
    return seen !== undefined && deps.clocks.monotonic() - seen.at <= ms;
  };
  return {
    record,
    healthyHosts: () => deps.gateways.map((g) => g.host).filter((host) => last.get(host)?.ok === true && heardWithin(host, deps.windowMs)),
    async probeIdle() {
      const idle = deps.gateways.filter(
        (g) => !heardWithin(g.host, deps.windowMs / 2) && !(last.get(g.host)?.ok === false && heardWithin(g.host, deps.windowMs)),
      );
      await Promise.all(idle.map(async (g) => record(g.host, await probeGateway(g, Math.min(deps.timeoutMs, deps.windowMs / 2), deps.post))));
    },
  };
}
