import type { ReadStore } from '../src/ports/readStore.js';
import { collectionOf, type HandledEvent, type ProjectionDefinition } from './definition.js';

/** the one document of the quarantine-stats read model */
export const QUARANTINE_STATS_ID = 'all';

/** How many items the operator holds now (quarantine), for `/metrics` and the status page: one document read, never a scan. */
export interface QuarantineStats {
  /** uploaded items held and not released (the items nested in them are held with them, not counted) */
  heldItems: number;
}

const handles = ['DataItemQuarantined', 'DataItemReleased'] as const;

export const quarantineStatsProjection: ProjectionDefinition<QuarantineStats, HandledEvent<typeof handles>> = {
  name: 'quarantine-stats',
  version: 1,
  handles,
  documentIds: () => [QUARANTINE_STATS_ID],
  // the item's decider records a hold only of an item not held and a release only of one held, so the
  // two alternate on each stream and their difference is the items held now
  reduce: (doc, event) => ({
    heldItems: event.type === 'DataItemQuarantined' ? (doc?.heldItems ?? 0) + 1 : Math.max(0, (doc?.heldItems ?? 0) - 1),
  }),
};

/** Items held now, for /metrics and the dashboard (one document read). */
export async function heldItemsNow(readStore: Pick<ReadStore, 'get'>): Promise<number> {
  return (await readStore.get<QuarantineStats>(collectionOf(quarantineStatsProjection), QUARANTINE_STATS_ID))?.doc.heldItems ?? 0;
}
