import type { ReadStore } from '../../ports/readStore.js';
import { collectionOf } from '../../../projections/definition.js';
import { pendingNestedIndexProjection, type PendingNestedIndex } from '../../../projections/pendingNestedIndex.js';
import { headerOf, MAX_HEADER_BYTES } from '../multipart/headerOf.js';
import { readRange } from './blobRange.js';
import { recordNestedItems, type RecordNestedDeps } from './recordNested.js';

const PAGE = 500;

/**
 * Records the nested items of bundle items a crash left unindexed (accepted, no `NestedItemsIndexed`
 * after `graceMs`: the upload itself indexes within its request). Racing an upload or another
 * instance is safe: the record is appended at revision 0 only, once. Returns how many it recorded.
 */
export async function recoverNestedIndexes(
  deps: RecordNestedDeps & { readStore: Pick<ReadStore, 'scan'>; log?: (message: string, fields?: Record<string, unknown>) => void },
  options: { now: number; graceMs: number },
): Promise<number> {
  const collection = collectionOf(pendingNestedIndexProjection);
  let recorded = 0;
  let afterId: string | undefined;
  for (;;) {
    const page = await deps.readStore.scan<PendingNestedIndex>(collection, { ...(afterId ? { afterId } : {}), limit: PAGE });
    for (const { id, doc } of page) {
      if (doc.acceptedAt > options.now - options.graceMs) continue;
      const first = await readRange(deps.blobStore, doc.blobKey, 0, Math.min(doc.rawContentLength, MAX_HEADER_BYTES));
      const header = headerOf(first);
      if (!header) {
        deps.log?.('nested-index recovery: stored item has no readable header', { id });
        continue;
      }
      const root = { id, blobKey: doc.blobKey, rawContentLength: doc.rawContentLength, payloadDataStart: doc.payloadDataStart, tags: header.tags };
      if (await recordNestedItems(deps, root, { correlationId: 'nested-index-recovery' })) recorded++;
    }
    if (page.length < PAGE) return recorded;
    afterId = page[page.length - 1]!.id;
  }
}
