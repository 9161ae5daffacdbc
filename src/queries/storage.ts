import type { ReadStore } from '../ports/readStore.js';
import { bestEffort } from '../bestEffort.js';
import {
  collectionOf,
  retentionStatsProjection,
  RETENTION_STATS_ID,
  uploadStatsProjection,
  UPLOAD_STATS_ID,
  type RetentionStats,
  type UploadStatsDocument,
} from '../../projections/index.js';
import { MINUTE_MS, RETAINED_MINUTES } from '../../projections/uploadStats.js';

/** What the items' bytes take, for the status page and `/metrics` (docs/operations.md, retention). */
export interface StorageFigures {
  /** bytes of accepted items kept in the blob store: accepted, less those retired after permanence */
  bytesHeld: number;
  /** bytes of items retired after permanence (RETAIN_PERMANENT_BYTES_MS): read from the gateway since */
  bytesRetired: number;
  itemsRetired: number;
  /** free bytes of DATA_DIR's file system; null when not read */
  freeDiskBytes: number | null;
  /** bytes accepted over the last hour, times 24 */
  bytesPerDay: number;
  /**
   * free disk over `bytesPerDay`: how long the disk lasts at the last hour's rate, before retention
   * gives any back (an upper bound on the need, so a lower one on the days); null when nothing came
   * in the last hour or the free space is unknown
   */
  daysOfDiskLeft: number | null;
}

/** the figures as of `at`, from the upload-stats and retention-stats read models and the file system's free space */
export async function storageFigures(readStore: Pick<ReadStore, 'get'>, freeDiskBytes: () => Promise<number>, at: number): Promise<StorageFigures> {
  const [uploads, retention, free] = await Promise.all([
    readStore.get<UploadStatsDocument>(collectionOf(uploadStatsProjection), UPLOAD_STATS_ID),
    readStore.get<RetentionStats>(collectionOf(retentionStatsProjection), RETENTION_STATS_ID),
    bestEffort(freeDiskBytes(), 'the free space unknown: the days of disk left are null'),
  ]);
  const accepted = uploads?.doc.bytes ?? 0;
  const retired = retention?.doc.retiredBytes ?? 0;
  const since = Math.floor(at / MINUTE_MS) * MINUTE_MS - (RETAINED_MINUTES - 1) * MINUTE_MS;
  const lastHour = (uploads?.doc.minutes ?? []).reduce((sum, [minute, , bytes]) => (minute >= since ? sum + bytes : sum), 0);
  const bytesPerDay = lastHour * 24;
  return {
    bytesHeld: Math.max(0, accepted - retired),
    bytesRetired: retired,
    itemsRetired: retention?.doc.retiredItems ?? 0,
    freeDiskBytes: free ?? null,
    bytesPerDay,
    daysOfDiskLeft: free !== undefined && bytesPerDay > 0 ? free / bytesPerDay : null,
  };
}
