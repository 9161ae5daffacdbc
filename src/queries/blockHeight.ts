import type { BlockHeightHealth } from '../ports/gateway.js';

/**
 * The block height and the gateway as the status page shows them (`summary.blockHeight`): the height
 * receipts are signed with, when it was read, whether it is fresh enough to sign with, whether the
 * gateway answers, and its last failure while it does not. Times are ISO strings, like the summary's.
 */
export interface DashboardBlockHeight {
  height: number | null;
  readAt: string | null;
  /** receipts can be signed: the height was read at most `maxAgeMs` ago (else uploads answer 503) */
  fresh: boolean;
  maxAgeMs: number;
  reachable: boolean;
  lastError: string | null;
  lastErrorAt: string | null;
}

const isoOrNull = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

export const dashboardBlockHeight = (health: BlockHeightHealth): DashboardBlockHeight => ({
  height: health.height ?? null,
  readAt: isoOrNull(health.readAt),
  fresh: health.fresh,
  maxAgeMs: health.maxAgeMs,
  reachable: health.reachable,
  lastError: health.lastError ?? null,
  lastErrorAt: isoOrNull(health.lastErrorAt),
});
