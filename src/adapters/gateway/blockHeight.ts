import type { BlockHeightSource } from '../../ports/gateway.js';
import { fetchBlockHeight } from './fetchBlockHeight.js';
import { createHeightGuard, type HeightGuard } from './heightGuard.js';
import { readHeightState, writeHeightState } from './heightStateFile.js';

export interface BlockHeightSourceOptions {
  /** origin (optionally with a path prefix) of the Arweave gateway */
  gatewayUrl: string;
  /** JSON file in the data dir holding the last height seen */
  stateFile: string;
  refreshMs?: number;
  fetchTimeoutMs?: number;
  /** how long `start()` may wait for the first answer of the gateway before going on without it */
  startWaitMs?: number;
  fetch?: typeof fetch;
  /** what heights are believed; shared with the bundler's gateway (default: its own, default settings) */
  guard?: HeightGuard;
  log?: (message: string, error?: unknown) => void;
}

export interface GatewayBlockHeightSource extends BlockHeightSource {
  /** one refresh now (joins the one in flight, if any); never rejects */
  refresh(): Promise<void>;
}

/**
 * The block height for receipts' deadline heights, cached so an upload never waits on the gateway:
 * refreshed from `GET /info` in the background, persisted so a restart with the gateway down still
 * knows it. A failed refresh is logged and the last known height kept; so is a height the guard
 * refuses (heightGuard.ts), which is never saved.
 */
export function createBlockHeightSource({
  gatewayUrl,
  stateFile,
  refreshMs = 60_000,
  fetchTimeoutMs = 10_000,
  startWaitMs = 2_000,
  fetch: fetchFn = fetch,
  log = (message, error) => console.warn(message, ...(error === undefined ? [] : [error])),
  guard = createHeightGuard({ log }),
}: BlockHeightSourceOptions): GatewayBlockHeightSource {
  // 0 until a height is known (no state file yet and the gateway unreachable since start): uploads
  // still succeed, their receipts carrying deadlineHeight = 0 + offset, a deadline already past.
  // The state file exists so that this happens only on a first start with the gateway down.
  const height = () => guard.current() ?? 0;
  /** the height the state file holds, so a failed save is tried again on the next refresh */
  let saved: number | undefined;
  let running: AbortController | undefined;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;

  async function refreshOnce(signal: AbortSignal | undefined): Promise<void> {
    let fetched: number;
    try {
      fetched = await fetchBlockHeight({ gatewayUrl, timeoutMs: fetchTimeoutMs, fetch: fetchFn, signal });
    } catch (error) {
      if (!signal?.aborted) log(`block height not refreshed, keeping ${height()}: ${(error as Error).message}`);
      return;
    }
    // a refused height is logged by the guard (once, not every refresh), and neither used nor saved
    if (!guard.admit(fetched).accepted) return;
    // the highest accepted, which the bundler's calls may have raised since the last refresh
    const accepted = height();
    if (accepted === saved) return;
    try {
      await writeHeightState(stateFile, { height: accepted, at: guard.acceptedAt() });
      saved = accepted;
    } catch (error) {
      log(`block height ${accepted} not saved to ${stateFile}`, error);
    }
  }

  function refresh(): Promise<void> {
    // One request at a time: a slow gateway must not pile requests up, one per interval.
    inFlight ??= refreshOnce(running?.signal).finally(() => (inFlight = undefined));
    return inFlight;
  }

  return {
    current: height,
    refresh,

    async start() {
      if (running) return;
      const run = (running = new AbortController());
      try {
        const state = await readHeightState(stateFile);
        saved = state?.height;
        if (state) guard.restore(state.height, state.at);
      } catch (error) {
        log(`block height state ignored: ${(error as Error).message}`);
      }
      if (run.signal.aborted) return; // stopped while reading the state file
      const first = refresh();
      timer = setInterval(() => void refresh(), refreshMs);
      timer.unref();
      let waiting: NodeJS.Timeout | undefined;
      await Promise.race([first, new Promise((resolve) => (waiting = setTimeout(resolve, startWaitMs)))]);
      clearTimeout(waiting);
    },

    stop() {
      clearInterval(timer);
      running?.abort();
      running = undefined;
    },
  };
}
