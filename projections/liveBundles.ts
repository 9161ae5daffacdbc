import type { BundleEvent } from '../src/domain/bundle/events.js';
import { LIVE, type BundleStatus } from '../src/domain/bundle/state.js';
import type { ReadStore } from '../src/ports/readStore.js';
import { collectionOf, type ProjectionDefinition } from './definition.js';

/** Bundles not yet permanent or dropped: what the bundler moves forward. */
export interface LiveBundle {
  status: BundleStatus;
  plannedAt: number;
  txId?: string;
}

export const liveBundlesProjection: ProjectionDefinition<LiveBundle, BundleEvent> = {
  name: 'live-bundles',
  version: 1,
  handles: ['BundlePlanned', 'BundlePrepared', 'BundlePosted', 'BundleSeeded', 'BundleConfirmed', 'BundlePermanent', 'BundleDropped'],
  documentIds: (event) => [event.data.planId],
  reduce: (doc, event) => {
    switch (event.type) {
      case 'BundlePlanned':
        return { status: 'planned', plannedAt: event.data.timestamp };
      case 'BundlePrepared':
        return doc && { ...doc, status: 'prepared', txId: event.data.txId };
      case 'BundlePosted':
        return doc && { ...doc, status: 'posted' };
      case 'BundleSeeded':
        return doc && { ...doc, status: 'seeded' };
      case 'BundleConfirmed':
        return doc && { ...doc, status: 'confirmed' };
      case 'BundlePermanent':
      case 'BundleDropped':
        return undefined;
      // not handled (a bundle waiting for funds stays planned): were it ever given, nothing changes
      case 'BundleAwaitingFunds':
        return doc;
    }
  },
};

/** live bundles are few (the bundler moves a handful at a time): read a page at a time */
const SCAN_PAGE = 500;

/** How many live bundles are in each state (every live state listed, 0 when none), for the dashboard and /metrics. */
export async function liveBundlesByState(readStore: Pick<ReadStore, 'scan'>): Promise<Record<BundleStatus, number>> {
  const counts = Object.fromEntries(LIVE.map((s) => [s, 0])) as Record<BundleStatus, number>;
  const collection = collectionOf(liveBundlesProjection);
  let afterId: string | undefined;
  for (;;) {
    const page = await readStore.scan<LiveBundle>(collection, { ...(afterId !== undefined ? { afterId } : {}), limit: SCAN_PAGE });
    for (const { doc } of page) counts[doc.status] = (counts[doc.status] ?? 0) + 1;
    if (page.length < SCAN_PAGE) return counts;
    afterId = page[page.length - 1]!.id;
  }
}
