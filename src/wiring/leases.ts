import type { Config } from '../config.js';
import type { ReadStore } from '../ports/readStore.js';

/**
 * Every lease the service takes, by name, and how long one hold lasts: one process at a time runs
 * what each names, and a holder that died is replaced once its hold runs out.
 */
export function leaseTerms(config: Config) {
  return {
    // renewed every second: a runner that died is replaced within about five seconds
    projector: 5_000,
    // renewed each pass and every second during one: a bundler that died is replaced within seconds
    bundler: Math.max(5_000, 2 * config.bundler.intervalMs),
    reconciler: 3 * config.reconcileIntervalMs,
    refunder: 3 * config.reconcileIntervalMs,
    'x402-recovery': 3 * config.reconcileIntervalMs,
    'top-ups': 3 * config.topUps.checkIntervalMs,
    'blob-sweep': 3 * config.blobSweep.intervalMs,
    retention: 3 * config.retention.intervalMs,
    // renewed every second: a bridge that died is replaced within about ten seconds
    'optical-bridge': 10_000,
  } as const satisfies Record<string, number>;
}

export type LeaseName = keyof ReturnType<typeof leaseTerms>;

export interface Leases {
  /** takes or renews the lease for this process: true while it holds it */
  hold(name: LeaseName): () => Promise<boolean>;
  /** hands every lease back (expired now), so a successor need not wait them out; a read store that is down only warns */
  handBack(warn: (message: string, fields: Record<string, unknown>) => void): Promise<void>;
}

/** The leases of one process (`holder`: its name in them; a restarted process is a new holder, so its lease waits out its old one). */
export function createLeases(readStore: ReadStore, holder: string, config: Config, now: () => number): Leases {
  const terms = leaseTerms(config);
  return {
    hold: (name) => () => readStore.tryLease(name, holder, terms[name], now()),
    async handBack(warn) {
      for (const lease of Object.keys(terms)) {
        await readStore.tryLease(lease, holder, 0, now()).catch((error: unknown) => warn('lease not handed back', { lease, error: String(error) }));
      }
    },
  };
}
