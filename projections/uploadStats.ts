import { match } from 'ts-pattern';
import type { DomainEvent } from '../src/domain/events.js';
import type { ReadStore } from '../src/ports/readStore.js';
import { collectionOf, type HandledEvent, type ProjectionDefinition } from './definition.js';

/** the one document of the upload-stats read model */
export const UPLOAD_STATS_ID = 'all';
export const MINUTE_MS = 60_000;
/** minutes kept, counted back from the newest acceptance's minute: the status page shows the last hour */
export const RETAINED_MINUTES = 60;

/** failures the status page lists, newest first */
export const RECENT_FAILURES = 10;

/** [minute start (ms), items accepted, bytes accepted] */
export type MinuteBucket = [number, number, number];

/** an item FAILED now: out of bundle attempts, or its stored bytes damaged */
export interface RecentFailure {
  id: string;
  at: number;
  reason: string;
}

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
  /** items FAILED now for want of bundle attempts (a requeue takes one back) */
  failedItems: number;
  /**
   * the last RECENT_FAILURES items that failed or were found damaged, newest first; one requeued or
   * repaired since leaves the list (which then holds fewer until the next failure)
   */
  recentFailures: RecentFailure[];
  /** items whose stored bytes are damaged now (found, not yet repaired); absent until the first is found */
  damagedItems?: number;
  bundlesPermanent: number;
  bundlesDropped: number;
}

const handles = ['DataItemAccepted', 'DataItemFailed', 'DataItemDamaged', 'DataItemRepaired', 'DataItemRequeued', 'BundlePermanent', 'BundleDropped'] as const;
type UploadStatsEvent = HandledEvent<typeof handles>;

export const emptyUploadStats = (): UploadStatsDocument => ({
  minutes: [],
  items: 0,
  bytes: 0,
  failedItems: 0,
  recentFailures: [],
  bundlesPermanent: 0,
  bundlesDropped: 0,
});

/** what was found, in a few words (the item's history has the blob and digests) */
const DAMAGE: Record<'missing' | 'short' | 'long' | 'digest', string> = { missing: 'lost', short: 'cut short', long: 'grown', digest: 'changed' };

/** the failure first, the item's older entry (if any) out, at most RECENT_FAILURES kept */
const failing = (list: readonly RecentFailure[], failure: RecentFailure): RecentFailure[] =>
  [failure, ...list.filter((f) => f.id !== failure.id)].slice(0, RECENT_FAILURES);
const leaving = (list: readonly RecentFailure[], id: string): RecentFailure[] => list.filter((f) => f.id !== id);

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
  // v2: recentFailures, and failedItems counts the items FAILED now (requeues taken back)
  version: 2,
  handles,
  documentIds: () => [UPLOAD_STATS_ID],
  reduce: (doc, event) => {
    const stats = doc ?? emptyUploadStats();
    return (
      match(event)
        .returnType<UploadStatsDocument>()
        .with({ type: 'DataItemAccepted' }, ({ data: d }) => ({
          ...stats,
          minutes: countInMinute(stats.minutes, d.timestamp, d.rawContentLength),
          items: stats.items + 1,
          bytes: stats.bytes + d.rawContentLength,
        }))
        .with({ type: 'DataItemFailed' }, ({ data: d }) => ({
          ...stats,
          failedItems: stats.failedItems + 1,
          recentFailures: failing(stats.recentFailures, { id: d.id, at: d.timestamp, reason: d.reason }),
        }))
        // each is recorded once per damage (the item's decider), so the count is of items damaged now
        .with({ type: 'DataItemDamaged' }, ({ data: d }) => ({
          ...stats,
          damagedItems: (stats.damagedItems ?? 0) + 1,
          recentFailures: failing(stats.recentFailures, { id: d.id, at: d.timestamp, reason: `damaged: stored bytes ${DAMAGE[d.found]}; upload it again` }),
        }))
        .with({ type: 'DataItemRepaired' }, ({ data: d }) => ({
          ...stats,
          damagedItems: Math.max(0, (stats.damagedItems ?? 0) - 1),
          recentFailures: leaving(stats.recentFailures, d.id),
        }))
        .with({ type: 'DataItemRequeued' }, ({ data: d }) => ({
          ...stats,
          failedItems: Math.max(0, stats.failedItems - 1),
          recentFailures: leaving(stats.recentFailures, d.id),
        }))
        .with({ type: 'BundlePermanent' }, () => ({ ...stats, bundlesPermanent: stats.bundlesPermanent + 1 }))
        .with({ type: 'BundleDropped' }, () => ({ ...stats, bundlesDropped: stats.bundlesDropped + 1 }))
        .exhaustive()
    );
  },
};

/** Items whose stored bytes are damaged now, for /metrics (one document read). */
export async function damagedItemsNow(readStore: Pick<ReadStore, 'get'>): Promise<number> {
  const stats = await readStore.get<UploadStatsDocument>(collectionOf(uploadStatsProjection), UPLOAD_STATS_ID);
  return stats?.doc.damagedItems ?? 0;
}
