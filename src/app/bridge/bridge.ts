import { every } from '../periodic.js';
import { startBridgeRun, type BridgeDeps, type BridgeStats } from './bridgeRun.js';

/** how often the lease is renewed and the bridge's timers looked at (the interval, when shorter) */
const LEASE_RENEW_MS = 1_000;

export interface OpticalBridge {
  start(): void;
  stop(): Promise<void>;
  stats(): BridgeStats;
}

/**
 * The optical bridge under its lease: one process at a time posts headers (split roles and
 * replicas post each once). Each renewal that finds the lease held starts a run if none is
 * running (a run that failed, the event store down, is started again); a lost lease stops it, and
 * the next holder reads on from the checkpoint.
 */
export function createOpticalBridge(deps: BridgeDeps & { holdLease: () => Promise<boolean> }): OpticalBridge {
  const stats: BridgeStats = { queued: 0, posted: {}, posts: {}, failed: {}, headers: { handed: 0, read: 0 } };
  let run: ReturnType<typeof startBridgeRun> | undefined;
  let failed = false;
  let lease: ReturnType<typeof every> | undefined;
  let ticks: ReturnType<typeof every> | undefined;

  async function stopRun() {
    const ending = run;
    run = undefined;
    await ending?.stop();
  }

  async function supervise() {
    const held = await deps.holdLease();
    if (held && (!run || failed)) {
      await stopRun();
      failed = false;
      run = startBridgeRun(deps, stats);
      run.reading.catch((error: unknown) => {
        failed = true;
        deps.log('optical bridge: reading the events failed; started again at the next renewal', { error: String(error) });
      });
    } else if (!held && run) {
      await stopRun();
    }
  }

  const logFailure = (message: string, error: unknown) => deps.log(`optical bridge: ${message}`, { error: String(error) });
  return {
    start() {
      lease = every(LEASE_RENEW_MS, supervise, logFailure);
      lease.now();
      ticks = every(Math.min(deps.settings.intervalMs, LEASE_RENEW_MS), async () => run?.tick(), logFailure);
    },
    async stop() {
      await lease?.stop();
      await ticks?.stop();
      await stopRun();
    },
    stats: () => ({ ...stats, posted: { ...stats.posted }, posts: { ...stats.posts }, failed: { ...stats.failed }, headers: { ...stats.headers } }),
  };
}
