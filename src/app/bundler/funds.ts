import type { ArweaveGateway, GatewayCallOptions } from '../../ports/gateway.js';
import { every } from '../periodic.js';

/** What the dashboard and /metrics show of the service wallet (amounts in winston, decimal strings). */
export interface FundsSnapshot {
  /** the wallet that pays every bundle's reward */
  address: string;
  /** the last balance read; absent before the first read succeeded */
  balance?: string;
  /** when it was read (ISO 8601) */
  readAt?: string;
  /** bundles planned and waiting for the wallet to hold their reward */
  waitingBundles: number;
  /** what the wallet lacks to pay every waiting bundle: their rewards together minus the balance */
  shortBy?: string;
}

export interface WalletFundsOptions {
  gateway: Pick<ArweaveGateway, 'walletBalance'>;
  address: string;
  /** how often the balance is read in the background */
  refreshMs: number;
  /** the wall clock: when the balance was read, as the snapshot shows it */
  now: () => number;
  /** the clock of the read's age (default performance.now): monotonic, so a wall clock set back does not keep a balance for that long */
  monotonic?: () => number;
  /** a warning when bundles start waiting for funds, and when none waits any more (once per change) */
  warn?: (message: string, fields: Record<string, unknown>) => void;
  /** a background read failed */
  log?: (message: string, error: unknown) => void;
}

/**
 * The service wallet's funds as the bundler sees them: its balance, read every `refreshMs` (as the
 * block height is), and the bundles waiting for it. A bundle whose reward the balance does not cover
 * waits, planned: nothing about it is wrong, and no attempt of its items is spent on the operator's
 * funding. The balance is read again before a bundle is first judged short (the wallet may have
 * been funded since the last read); a bundle already waiting goes on once a later read covers it.
 */
export function createWalletFunds({
  gateway,
  address,
  refreshMs,
  now,
  monotonic = () => performance.now(),
  warn = () => {},
  log = () => {},
}: WalletFundsOptions) {
  let balance: bigint | undefined;
  let readAt: number | undefined;
  let readAtMonotonic: number | undefined;
  /**
   * the balance when the gateway last refused a post for funds, though it seemed to cover the
   * reward (its price, or the wallet's pending spending, differs from ours): nothing is taken as
   * covered until a read shows another balance (funded, or pending spending mined), so a bundle is
   * not signed and refused again each pass
   */
  let refusedAt: bigint | undefined;
  /** planId -> reward, of the bundles waiting */
  const waiting = new Map<string, bigint>();
  let short = false;

  async function read(options: GatewayCallOptions = {}): Promise<bigint> {
    const answered = await gateway.walletBalance(address, options);
    balance = answered;
    readAt = now();
    readAtMonotonic = monotonic();
    if (refusedAt !== undefined && answered !== refusedAt) refusedAt = undefined;
    return answered;
  }

  const covers = (reward: bigint): boolean => balance !== undefined && balance >= reward && refusedAt === undefined;

  /** logs once each time bundles start waiting for funds, and once when none waits any more */
  function judge(): void {
    const now = waiting.size > 0;
    if (now === short) return;
    short = now;
    if (now) warn('the service wallet cannot pay for the bundles due: they wait until it is funded', fieldsOf());
    else warn('the service wallet pays for the bundles again: none waits for funds', fieldsOf());
  }

  function fieldsOf(): Record<string, unknown> {
    const { balance: b, waitingBundles, shortBy } = snapshot();
    return { address, balance: b, waitingBundles, ...(shortBy !== undefined ? { shortBy } : {}) };
  }

  function snapshot(): FundsSnapshot {
    const needed = [...waiting.values()].reduce((sum, reward) => sum + reward, 0n);
    const lacking = needed - (balance ?? 0n);
    return {
      address,
      ...(balance !== undefined ? { balance: balance.toString() } : {}),
      ...(readAt !== undefined ? { readAt: new Date(readAt).toISOString() } : {}),
      waitingBundles: waiting.size,
      ...(waiting.size > 0 && lacking > 0n ? { shortBy: lacking.toString() } : {}),
    };
  }

  let periodic: ReturnType<typeof every> | undefined;
  return {
    address,
    /**
     * Whether the wallet can pay `reward` for bundle `planId` now. Not covered by the last read, and
     * not yet known to wait (or the read is older than `refreshMs`), the balance is read again first. False: the bundle waits (counted until
     * a later call for it answers true, or `settled`); a failed read rejects (the step is retried).
     */
    async canPay(planId: string, reward: bigint, options: GatewayCallOptions = {}): Promise<{ enough: boolean; balance: bigint }> {
      // a read older than the refresh interval is read again too: passes run without the background refresh (tests, tools)
      const stale = readAtMonotonic === undefined || monotonic() - readAtMonotonic >= refreshMs;
      if (!covers(reward) && (!waiting.has(planId) || stale)) await read(options);
      const enough = covers(reward);
      if (enough) waiting.delete(planId);
      else waiting.set(planId, reward);
      judge();
      return { enough, balance: balance! };
    },
    /** the gateway refused a post for funds: nothing is covered until the balance differs from what it is now */
    refused(): void {
      refusedAt = balance ?? 0n;
    },
    /** the bundle no longer waits (prepared, dropped, or gone) */
    settled(planId: string): void {
      if (waiting.delete(planId)) judge();
    },
    /** forgets waiting bundles that are no longer live (dropped, or moved on by another bundler instance) */
    retain(livePlanIds: ReadonlySet<string>): void {
      let changed = false;
      for (const planId of waiting.keys()) if (!livePlanIds.has(planId)) changed = waiting.delete(planId) || changed;
      if (changed) judge();
    },
    /** reads the balance now (what the background refresh does) */
    refresh: (options?: GatewayCallOptions) => read(options),
    snapshot,
    /** reads the balance now, then every `refreshMs`; a failed read is logged and the last balance kept */
    start(): void {
      void read().catch((error: unknown) => log('service wallet balance not read', error));
      periodic ??= every(
        refreshMs,
        () => read(),
        (message, error) => log(`wallet balance: ${message}`, error),
      );
    },
    async stop(): Promise<void> {
      await periodic?.stop();
      periodic = undefined;
    },
  };
}
export type WalletFunds = ReturnType<typeof createWalletFunds>;
