import type { ReadStore } from '../../ports/readStore.js';
import { collectionOf, openReservationsProjection, type OpenReservation } from '../../../projections/index.js';
import type { AccountRepository } from './accounts.js';
import type { DataItemRepository } from '../acceptance/dataItems.js';
import { leasedPass } from '../periodic.js';

export interface ReconcilerOptions {
  /** the process's one data-item repository (src/wiring/shared.ts): the item's stream decides */
  items: DataItemRepository;
  readStore: ReadStore;
  accounts: AccountRepository;
  /** a reservation older than this with no settlement is looked at */
  reservationTimeoutMs: number;
  intervalMs: number;
  /** one active reconciler across processes (absent: always active) */
  holdLease?: () => Promise<boolean>;
  now: () => number;
  log?: (message: string, error?: unknown) => void;
}

/**
 * Heals a crash between reserving and accepting (or between accepting and settling): a stale open
 * reservation is settled when its item was accepted with it, and released otherwise. It reads the
 * open-reservations read model to find candidates and decides from the streams themselves.
 */
export function createReconciler(options: ReconcilerOptions) {
  const { items, readStore, accounts, reservationTimeoutMs, intervalMs, now, log = () => {} } = options;
  const meta = { correlationId: 'reconciler' };

  async function runOnce(): Promise<{ settled: number; released: number }> {
    const result = { settled: 0, released: 0 };
    const cutoff = now() - reservationTimeoutMs;
    const collection = collectionOf(openReservationsProjection);
    let afterId: string | undefined;
    for (;;) {
      const page = await readStore.scan<OpenReservation>(collection, { ...(afterId ? { afterId } : {}), limit: 500 });
      for (const { id, doc } of page) {
        if (doc.timestamp > cutoff) continue;
        const item = await items.read(doc.dataItemId);
        const accepted = item.status === 'accepted' && item.reservationId === id;
        const data = { address: doc.address, reservationId: id, now: now() };
        const { events } = accepted
          ? await accounts.execute({ type: 'Settle', data }, meta)
          : await accounts.execute({ type: 'Release', data: { ...data, reason: 'item never accepted' } }, meta);
        if (events.length > 0) result[accepted ? 'settled' : 'released'] += 1;
      }
      if (page.length < 500) return result;
      afterId = page[page.length - 1]!.id;
    }
  }

  return { runOnce, ...leasedPass('reconciler', intervalMs, options.holdLease, runOnce, log) };
}
