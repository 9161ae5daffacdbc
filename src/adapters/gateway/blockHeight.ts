import type { BlockHeightSource } from '../../ports/gateway.js';
import { anchoredWall } from '../../clock.js';
import { fetchBlockHeight } from './fetchBlockHeight.js';
import { createHeightGuard, type HeightGuard } from './heightGuard.js';
import { readHeightState, writeHeightState } from './heightStateFile.js';

export interface BlockHeightSourceOptions {
  /** origin (optionally with a path prefix) of the Arweave gateway */
  gatewayUrl: string;
  /** JSON file in the data dir holding the last height seen */
  stateFile: string;
  refreshMs?: number;
  /** BLOCK_HEIGHT_MAX_AGE_MS: a height read longer ago than this signs no receipt */
  maxAgeMs?: number;
  fetchTimeoutMs?: number;
  /** how long `start()` may wait for the first answer of the gateway before going on without it */
  startWaitMs?: number;
  fetch?: typeof fetch;
  /** what heights are believed; shared with the bundler's gateway (default: its own, default settings) */
  guard?: HeightGuard;
  /** sees each `GET /info` answer before its height is judged (gatewayProfile.ts) */
  observeInfo?: (info: string) => void;
  log?: (message: string, error?: unknown) => void;
  /**
   * wall-clock milliseconds that no step moves (default `anchoredWall()`, src/clock.ts): the age of the
   * height in use must not jump with the system clock; pass the guard's own clock with `guard`
   */
  now?: () => number;
}

export interface GatewayBlockHeightSource extends BlockHeightSource {
  /** one refresh now (joins the one in flight, if any); never rejects */
  refresh(): Promise<void>;
}

export const DEFAULT_BLOCK_HEIGHT_MAX_AGE_MS = 30 * 60_000;

/**
 * The block height for receipts' deadline heights, cached so an upload never waits on the gateway:
 * refreshed from `GET /info` in the background, persisted (with when it was read) so a restart with
 * the gateway down still knows it. A height is used only while younger than `maxAgeMs`, counted from
 * when a gateway last answered it (the bundler's calls through the shared guard count too): with none
 * that fresh, `current()` is undefined and uploads answer 503 rather than sign a made-up deadline.
 * A failed refresh keeps the last height; so does a height the guard refuses (heightGuard.ts), which
 * is never saved. The log says when the gateway is lost, answers again, or the height grows too old:
 * once per change, not once per refresh.
 */
export function createBlockHeightSource({
  gatewayUrl,
  stateFile,
  refreshMs = 60_000,
  maxAgeMs = DEFAULT_BLOCK_HEIGHT_MAX_AGE_MS,
  fetchTimeoutMs = 10_000,
  startWaitMs = 2_000,
  fetch: fetchFn = fetch,
  log = (message, error) => console.warn(message, ...(error === undefined ? [] : [error])),
  now = anchoredWall(),
  guard = createHeightGuard({ log, now }),
  observeInfo,
}: BlockHeightSourceOptions): GatewayBlockHeightSource {
  /** what the state file holds, so a failed save is tried again on the next refresh */
  let saved: { height: number; at: number | undefined } | undefined;
  let running: AbortController | undefined;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;
  /** undefined until the first refresh ends */
  let reachable: boolean | undefined;
  let lastError: { message: string; at: number } | undefined;
  /** the freshness last logged about, so that its change is logged once */
  let wasFresh = false;

  /** a time in the future by more than the age (a clock set back, a forged file) is not believed either */
  const isFresh = (readAt: number | undefined, t: number) => readAt !== undefined && Math.abs(t - readAt) <= maxAgeMs;
  const iso = (ms: number) => new Date(ms).toISOString();
  const REFUSED = 'uploads answer 503 until the gateway answers';

  /** what is kept meanwhile, for the log line saying the gateway is lost */
  function keeping(t: number): string {
    const height = guard.current();
    const readAt = guard.readAt();
    if (height === undefined) return `no block height known: ${REFUSED}`;
    if (readAt === undefined) return `block height ${height} was saved without the time it was read: ${REFUSED}`;
    if (!isFresh(readAt, t)) return `block height ${height} read at ${iso(readAt)} is too old to sign receipts with: ${REFUSED}`;
    return `keeping block height ${height} read at ${iso(readAt)}, until ${iso(readAt + maxAgeMs)}`;
  }

  /** logs a change of freshness (fresh to too old); the gateway's changes are logged where they happen */
  function observe(t: number): boolean {
    const fresh = isFresh(guard.readAt(), t);
    if (wasFresh && !fresh) {
      log(`block height ${guard.current()} read at ${iso(guard.readAt()!)} is older than BLOCK_HEIGHT_MAX_AGE_MS (${maxAgeMs} ms): ${REFUSED}`);
    }
    wasFresh = fresh;
    return fresh;
  }

  function failed(message: string, t: number) {
    lastError = { message, at: t };
    if (reachable !== false) {
      log(`block height: gateway lost (${message}); ${keeping(t)}`);
      // the line above said how fresh the height is: no second line about it
      wasFresh = isFresh(guard.readAt(), t);
    }
    reachable = false;
  }

  async function refreshOnce(signal: AbortSignal | undefined): Promise<void> {
    let fetched: number;
    try {
      fetched = await fetchBlockHeight({ gatewayUrl, timeoutMs: fetchTimeoutMs, fetch: fetchFn, signal, observe: observeInfo });
    } catch (error) {
      if (!signal?.aborted) failed((error as Error).message, now());
      observe(now());
      return;
    }
    const t = now();
    if (reachable === false) log(`block height: gateway back (it answers ${fetched})`);
    reachable = true;
    // a refused height is logged by the guard (once, not every refresh), and neither used nor saved
    const verdict = guard.admit(fetched);
    if (!verdict.accepted) {
      lastError = { message: `block height ${fetched} refused: ${verdict.reason}`, at: t };
      observe(t);
      return;
    }
    lastError = undefined;
    observe(t);
    // the highest accepted (the bundler's calls may have raised it since), and when it was read
    const state = { height: verdict.height, at: guard.readAt() };
    if (state.height === saved?.height && state.at === saved.at) return;
    try {
      await writeHeightState(stateFile, state);
      saved = state;
    } catch (error) {
      log(`block height ${state.height} not saved to ${stateFile}`, error);
    }
  }

  function refresh(): Promise<void> {
    // One request at a time: a slow gateway must not pile requests up, one per interval.
    inFlight ??= refreshOnce(running?.signal).finally(() => (inFlight = undefined));
    return inFlight;
  }

  return {
    current: () => (observe(now()) ? guard.current() : undefined),

    health() {
      const t = now();
      const height = guard.current();
      const readAt = guard.readAt();
      return {
        ...(height !== undefined ? { height } : {}),
        ...(readAt !== undefined ? { readAt } : {}),
        fresh: observe(t) && height !== undefined,
        maxAgeMs,
        reachable: reachable === true,
        ...(lastError ? { lastError: lastError.message, lastErrorAt: lastError.at } : {}),
      };
    },

    refresh,

    async start() {
      if (running) return;
      const run = (running = new AbortController());
      try {
        const state = await readHeightState(stateFile);
        saved = state;
        if (state) guard.restore(state.height, state.at);
      } catch (error) {
        log(`block height state ignored: ${(error as Error).message}`);
      }
      wasFresh = isFresh(guard.readAt(), now());
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
