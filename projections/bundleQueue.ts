import { match } from 'ts-pattern';
import type { DomainEvent } from '../src/domain/events.js';
import type { ReadStore } from '../src/ports/readStore.js';
import { collectionOf, type HandledEvent, type ProjectionDefinition } from './definition.js';
import { itemIdsOf } from './itemIds.js';

/** Accepted items and the live bundle plan holding each (none: waiting to be bundled). */
export interface QueuedItem {
  size: number;
  acceptedAt: number;
  /** bundles of this item that were dropped (a drop for damaged items, or not about the bundle, counts for none) */
  attempts: number;
  planId?: string;
  /** its stored bytes are damaged: never planned until it is repaired */
  damaged?: true;
  /** held by the operator (quarantined): never planned until it is released */
  held?: true;
}

const handles = [
  'DataItemAccepted',
  'DataItemFailed',
  'DataItemDamaged',
  'DataItemRepaired',
  'DataItemRequeued',
  'DataItemQuarantined',
  'DataItemReleased',
  'BundlePlanned',
  'BundlePermanent',
  'BundleDropped',
] as const;
type QueueEvent = HandledEvent<typeof handles>;

export const bundleQueueProjection: ProjectionDefinition<QueuedItem, QueueEvent> = {
  name: 'bundle-queue',
  version: 1,
  handles,
  documentIds: itemIdsOf,

  reduce: (doc, event) => {
    if (event.type === 'DataItemAccepted') return doc ?? { size: event.data.rawContentLength, acceptedAt: event.data.timestamp, attempts: 0 };
    // the failure took it out of the queue: back with no attempt used, waiting for the next bundle
    if (event.type === 'DataItemRequeued') return doc ?? { size: event.data.rawContentLength, acceptedAt: event.data.acceptedAt, attempts: 0 };
    if (!doc) return doc;
    return (
      match(event)
        .returnType<QueuedItem | undefined>()
        .with({ type: 'DataItemFailed' }, () => undefined)
        // the plan holding it keeps it until that plan is dropped, so it is never in two live plans
        .with({ type: 'DataItemDamaged' }, () => ({ ...doc, damaged: true as const }))
        .with({ type: 'DataItemRepaired' }, () => {
          const { damaged: _, ...repaired } = doc;
          return repaired;
        })
        // as damage: a plan holding it keeps it until that plan is dropped (the hold drops it: src/app/quarantine.ts)
        .with({ type: 'DataItemQuarantined' }, () => ({ ...doc, held: true as const }))
        .with({ type: 'DataItemReleased' }, () => {
          const { held: _, ...released } = doc;
          return released;
        })
        .with({ type: 'BundlePlanned' }, ({ data }) => ({ ...doc, planId: data.planId }))
        .with({ type: 'BundlePermanent' }, ({ data }) => (doc.planId === data.planId ? undefined : doc))
        .with({ type: 'BundleDropped' }, ({ data }) => {
          if (doc.planId !== data.planId) return doc;
          const { planId: _, ...rest } = doc;
          // a drop recorded before `countsAsAttempt` existed reads as counting (upcast), as it did then
          return data.damagedItemIds || !data.countsAsAttempt ? rest : { ...rest, attempts: doc.attempts + 1 };
        })
        .exhaustive()
    );
  },
};

/** what the bundler reads a page at a time too (src/app/bundler/plan.ts) */
const SCAN_PAGE = 1000;

/**
 * Items waiting for a bundle (accepted or requeued, in no live plan, not damaged nor held) and the oldest one's
 * acceptance time, for the status page. The queue holds what waits plus the items of live bundles:
 * the bundler scans it whole at every pass, and so does this.
 */
export async function waitingForBundle(readStore: Pick<ReadStore, 'scan'>): Promise<{ items: number; oldestAcceptedAt: number | undefined }> {
  let items = 0;
  let oldestAcceptedAt: number | undefined;
  const collection = collectionOf(bundleQueueProjection);
  let afterId: string | undefined;
  for (;;) {
    const page = await readStore.scan<QueuedItem>(collection, { ...(afterId !== undefined ? { afterId } : {}), limit: SCAN_PAGE });
    for (const { doc } of page) {
      if (doc.planId !== undefined || doc.damaged || doc.held) continue;
      items++;
      if (oldestAcceptedAt === undefined || doc.acceptedAt < oldestAcceptedAt) oldestAcceptedAt = doc.acceptedAt;
    }
    if (page.length < SCAN_PAGE) return { items, oldestAcceptedAt };
    afterId = page[page.length - 1]!.id;
  }
}
