import type { ReadStore } from '../../ports/readStore.js';
import { collectionOf, unrefundedFailuresProjection, type UnrefundedFailure } from '../../../projections/index.js';
import { ChargeNotSettled } from '../../domain/account/decider.js';
import type { AccountRepository } from './accounts.js';
import type { DataItemRepository } from '../acceptance/dataItems.js';
import { leasedPass } from '../periodic.js';

export interface RefunderOptions {
  items: DataItemRepository;
  readStore: Pick<ReadStore, 'scan'>;
  accounts: AccountRepository;
  intervalMs: number;
  /** one active refunder across processes (absent: always active) */
  holdLease?: () => Promise<boolean>;
  now: () => number;
  log?: (message: string, error?: unknown) => void;
}

const PAGE = 500;
const meta = { correlationId: 'refunder' };

/**
 * Gives a FAILED item's charge back to the account that paid it (the process manager of refunds). The
 * `unrefunded-failures` read model names the candidates; the item's stream decides (FAILED now, for the
 * how-manyth time, paid by whom, how much), and the account's decider refunds each failure once
 * (`Refund`: nothing when that failure was refunded already). So a pass repeated, a restart between the
 * refund and its projection, or two processes at once (a lease that changed hands) refund once.
 */
export function createRefunder(options: RefunderOptions) {
  const { items, readStore, accounts, now, log = () => {} } = options;

  /** refunds what the item's current failure owes; true when a refund was recorded */
  async function refundOne(id: string, doc: UnrefundedFailure): Promise<boolean> {
    const item = await items.read(id);
    if (item.status !== 'accepted' || !item.failed || item.damaged) return false;
    // free: nothing was charged; an item accepted without a settled charge has nothing to give back either
    if (item.payer === undefined || item.reservationId === undefined || BigInt(item.winc) === 0n) return false;
    const data = {
      address: item.payer,
      dataItemId: id,
      reservationId: item.reservationId,
      winc: BigInt(item.winc),
      failure: item.failures ?? 1,
      reason: doc.reason,
      now: now(),
    };
    try {
      const { events } = await accounts.execute({ type: 'Refund', data }, meta);
      return events.length > 0;
    } catch (error) {
      // the reconciler settles it first; the next pass refunds it
      if (error instanceof ChargeNotSettled) return false;
      throw error;
    }
  }

  async function runOnce(): Promise<{ refunded: number }> {
    let refunded = 0;
    let afterId: string | undefined;
    for (;;) {
      const page = await readStore.scan<UnrefundedFailure>(collectionOf(unrefundedFailuresProjection), {
        ...(afterId !== undefined ? { afterId } : {}),
        limit: PAGE,
      });
      for (const { id, doc } of page) if (await refundOne(id, doc)) refunded += 1;
      if (page.length < PAGE) return { refunded };
      afterId = page[page.length - 1]!.id;
    }
  }

  return { runOnce, ...leasedPass('refunder', options.intervalMs, options.holdLease, runOnce, log) };
}
