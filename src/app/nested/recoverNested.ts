import type { ReadStore } from '../../ports/readStore.js';
import { collectionOf } from '../../../projections/definition.js';
import { pendingNestedIndexProjection, type PendingNestedIndex } from '../../../projections/pendingNestedIndex.js';

const PAGE = 500;

/**
 * Hands to `index` the bundle items whose nested index is still incomplete `graceMs` after their
 * acceptance: left by a crash (before or between parts), by a full queue, or by a stop. The process
 * that accepted an item indexes it right after answering, so the grace only spares a run in another
 * process the duplicate work; racing one is safe (see indexNestedItems). Returns how many `index` took.
 */
export async function recoverNestedIndexes(
  deps: { readStore: Pick<ReadStore, 'scan'>; index: (rootId: string) => Promise<boolean> },
  options: { now: number; graceMs: number },
): Promise<number> {
  const collection = collectionOf(pendingNestedIndexProjection);
  let taken = 0;
  let afterId: string | undefined;
  for (;;) {
    const page = await deps.readStore.scan<PendingNestedIndex>(collection, { ...(afterId ? { afterId } : {}), limit: PAGE });
    for (const { id, doc } of page) {
      if (doc.acceptedAt > options.now - options.graceMs) continue;
      if (await deps.index(id)) taken++;
    }
    if (page.length < PAGE) return taken;
    afterId = page[page.length - 1]!.id;
  }
}
