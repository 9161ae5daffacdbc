import { statfs } from 'node:fs/promises';
import type { ReadStore } from '../ports/readStore.js';
import { collectionOf, unfinishedUploadsProjection, uploadsProjection, type UploadDocument } from '../../projections/index.js';

/**
 * The temporary-space budget: bytes received and not yet accepted. Counted:
 * - single uploads in flight: their content-length from the start, or the bytes received so far
 *   when they send none (released when the request ends, accepted or not);
 * - chunk requests in flight: their content-length (required on chunks);
 * - multi-part data at rest: the recorded chunks of every upload not yet at an end (assembling,
 *   being finalized, underfunded), from the read models, so uploads left before a restart count;
 *   refreshed every `refreshMs`. A chunk stored since the last refresh stays counted until the
 *   next one, as are finalized or expired uploads' bytes until then: the count errs on the high side.
 * Alongside, the disk holding the data directory must keep `minFreeDiskBytes` free after the upload.
 * The in-flight part is per process; the multi-part part is shared by every process on the read store.
 */
export interface TempSpaceOptions {
  budgetBytes: number;
  minFreeDiskBytes: number;
  /** the directory whose file system's free space is checked */
  dataDir: string;
  readStore?: ReadStore;
  refreshMs?: number;
  log: (message: string, error?: unknown) => void;
}

export interface TempSpace {
  /** takes `bytes` from the budget: false (nothing taken) when they do not fit */
  tryTake(bytes: number): boolean;
  give(bytes: number): void;
  /** a chunk of `bytes` was stored: its bytes stay counted as multi-part data at rest */
  stored(bytes: number): void;
  /** bytes counted now: in flight, plus multi-part data at rest */
  used(): number;
  start(): Promise<void>;
  stop(): void;
}

const FREE_DISK_CACHE_MS = 1_000;

export function createTempSpace(options: TempSpaceOptions): TempSpace {
  const refreshMs = options.refreshMs ?? 15_000;
  let inFlight = 0;
  let atRest = 0;
  let storedSinceRefresh = 0;
  let freeDisk = Number.POSITIVE_INFINITY;
  let freeDiskAt = 0;
  let freeDiskPending: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;

  const used = () => inFlight + atRest + storedSinceRefresh;

  /** the free space as last seen (at most a second old once asked for): statfs is not free */
  function freeDiskNow(): number {
    if (Date.now() - freeDiskAt > FREE_DISK_CACHE_MS && !freeDiskPending) {
      freeDiskPending = statfs(options.dataDir)
        .then((s) => {
          freeDisk = Number(s.bavail) * Number(s.bsize);
          freeDiskAt = Date.now();
        })
        .catch((error) => options.log('free disk space unknown', error))
        .finally(() => (freeDiskPending = undefined));
    }
    return freeDisk;
  }

  async function refreshAtRest(): Promise<void> {
    if (!options.readStore) return;
    const counted = storedSinceRefresh;
    let sum = 0;
    let afterId: string | undefined;
    for (;;) {
      const page = await options.readStore.scan(collectionOf(unfinishedUploadsProjection), { ...(afterId ? { afterId } : {}), limit: 500 });
      const docs = await options.readStore.getMany<UploadDocument>(collectionOf(uploadsProjection), page.map((p) => p.id));
      for (const { doc } of docs.values()) for (const [, length] of doc.chunks) sum += length;
      if (page.length < 500) break;
      afterId = page[page.length - 1]!.id;
    }
    atRest = sum;
    // chunks stored while the scan ran may or may not be in it: kept counted, to err high
    storedSinceRefresh -= counted;
  }

  return {
    tryTake(bytes) {
      if (used() + bytes > options.budgetBytes) return false;
      // bytes in flight may not be on disk yet: taken off the free space too (erring high)
      if (options.minFreeDiskBytes > 0 && freeDiskNow() - inFlight - bytes < options.minFreeDiskBytes) return false;
      inFlight += bytes;
      return true;
    },
    give(bytes) {
      inFlight -= bytes;
    },
    stored(bytes) {
      storedSinceRefresh += bytes;
    },
    used,
    async start() {
      await Promise.all([
        refreshAtRest().catch((error) => options.log('multi-part data at rest not counted', error)),
        (freeDiskNow(), freeDiskPending),
      ]);
      timer = setInterval(() => void refreshAtRest().catch((error) => options.log('multi-part data at rest not counted', error)), refreshMs);
      timer.unref();
    },
    stop() {
      clearInterval(timer);
    },
  };
}
