import { match } from 'ts-pattern';
import type { DomainEvent } from '../src/domain/events.js';
import type { ReadStore } from '../src/ports/readStore.js';
import { collectionOf, type ProjectionDefinition } from './definition.js';

/** the one document of the upload-stats read model */
export const UPLOAD_STATS_ID = 'all';
export const MINUTE_MS = 60_000;
/** minutes kept, counted back from the newest acceptance's minute: the status page shows the last hour */
export const RETAINED_MINUTES = 60;

/** [minute start (ms), items accepted, bytes accepted] */
export type MinuteBucket = [number, number, number];

/**
 * Counters for the status page: acceptances per minute over the last hour, and totals the
 * live-bundles read model cannot give (bundles that ended, items that failed). One document,
 * bounded in size; its minutes come from the events' own times, so a rebuild gives the same.
 */
export interface UploadStatsDocument {
  /** ascending by minute, at most RETAINED_MINUTES of them */
  minutes: MinuteBucket[];
  items: number;
  bytes: number;
  failedItems: number;
  /** items whose stored bytes are damaged now (found, not yet repaired); absent until the first is found */
  damagedItems?: number;
  bundlesPermanent: number;
  bundlesDropped: number;
}

type UploadStatsEvent = Extract<
  DomainEvent,
  { type: 'DataItemAccepted' | 'DataItemFailed' | 'DataItemDamaged' | 'DataItemRepaired' | 'BundlePermanent' | 'BundleDropped' }
>;

export const emptyUploadStats = (): UploadStatsDocument => ({ minutes: [], items: 0, bytes: 0, failedItems: 0, bundlesPermanent: 0, bundlesDropped: 0 });

/** adds one item to its minute; events arrive nearly in time order, so an older minute is rare */
export function countInMinute(minutes: readonly MinuteBucket[], at: number, bytes: number): MinuteBucket[] {
  const minute = Math.floor(at / MINUTE_MS) * MINUTE_MS;
  const existing = minutes.find(([m]) => m === minute);
  const counted: MinuteBucket[] = existing
    ? minutes.map((b) => (b === existing ? [minute, b[1] + 1, b[2] + bytes] : b))
    : [...minutes, [minute, 1, bytes] as MinuteBucket].sort((a, b) => a[0] - b[0]);
  const newest = counted[counted.length - 1]![0];
  return counted.filter(([m]) => m > newest - RETAINED_MINUTES * MINUTE_MS);
}

export const uploadStatsProjection: ProjectionDefinition<UploadStatsDocument, UploadStatsEvent> = {
  name: 'upload-stats',
  version: 1,
  handles: ['DataItemAccepted', 'DataItemFailed', 'DataItemDamaged', 'DataItemRepaired', 'BundlePermanent', 'BundleDropped'],
  documentIds: () => [UPLOAD_STATS_ID],
  reduce: (doc, event) => {
    const stats = doc ?? emptyUploadStats();
    return match(event)
      .returnType<UploadStatsDocument>()
      .with({ type: 'DataItemAccepted' }, ({ data: d }) => ({
        ...stats,
        minutes: countInMinute(stats.minutes, d.timestamp, d.rawContentLength),
        items: stats.items + 1,
        bytes: stats.bytes + d.rawContentLength,
      }))
      .with({ type: 'DataItemFailed' }, () => ({ ...stats, failedItems: stats.failedItems + 1 }))
      // each is recorded once per damage (the item's decider), so the count is of items damaged now
      .with({ type: 'DataItemDamaged' }, () => ({ ...stats, damagedItems: (stats.damagedItems ?? 0) + 1 }))
      .with({ type: 'DataItemRepaired' }, () => ({ ...stats, damagedItems: Math.max(0, (stats.damagedItems ?? 0) - 1) }))
      .with({ type: 'BundlePermanent' }, () => ({ ...stats, bundlesPermanent: stats.bundlesPermanent + 1 }))
      .with({ type: 'BundleDropped' }, () => ({ ...stats, bundlesDropped: stats.bundlesDropped + 1 }))
      .exhaustive();
  },
};

/** Items whose stored bytes are damaged now, for /metrics (one document read). */
export async function damagedItemsNow(readStore: Pick<ReadStore, 'get'>): Promise<number> {
  const stats = await readStore.get<UploadStatsDocument>(collectionOf(uploadStatsProjection), UPLOAD_STATS_ID);
  return stats?.doc.damagedItems ?? 0;
}
