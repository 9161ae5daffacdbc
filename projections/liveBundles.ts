import type { BundleEvent } from '../src/domain/bundle/events.js';
import type { BundleStatus } from '../src/domain/bundle/state.js';
import type { ProjectionDefinition } from './definition.js';

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
    }
  },
};
