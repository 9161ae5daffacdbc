import { statfs } from 'node:fs/promises';

/**
 * The free-disk floor of the data directory: uploads may not take the disk below `floorBytes`.
 *
 * The free space is sampled (statfs is not free, so at most once a second, in the background), and a
 * sample is stale the moment bytes are written after it. So the estimate also takes off every byte
 * taken since: in flight (maybe not on disk yet), and written since the sample in use started (on
 * disk, not in the sample). It errs low, never high: a burst of uploads between two samples cannot
 * overshoot the floor.
 */
export interface DiskSpace {
  /** takes `bytes` about to be written; false (nothing taken) when the disk would go below the floor */
  tryTake(bytes: number): boolean;
  /** bytes taken are written, or dropped: they count as written until a newer sample shows them */
  give(bytes: number): void;
  /** below the floor now (no upload can be taken; `/ready` says so) */
  belowFloor(): boolean;
  /** the estimated free bytes (Infinity when no floor is set) */
  free(): number;
  readonly floorBytes: number;
  /** a sample now (the first one; a probe that wants the disk as it is) */
  sample(): Promise<void>;
  /** the first sample */
  start(): Promise<void>;
}

export interface DiskSpaceOptions {
  /** a directory on the disk to watch */
  dir: string;
  /** 0: no floor, nothing sampled */
  floorBytes: number;
  /** a sample older than this is refreshed when the space is asked for */
  sampleEveryMs?: number;
  /** free bytes of the file system holding `dir` (tests give their own) */
  freeBytesOf?: (dir: string) => Promise<number>;
  /** the monotonic clock a sample's age is measured on (a wall-clock step back would keep a stale sample) */
  monotonic?: () => number;
  log?: (message: string, error?: unknown) => void;
}

export const statfsFree = async (dir: string) => {
  const s = await statfs(dir);
  return Number(s.bavail) * Number(s.bsize);
};

export function createDiskSpace(options: DiskSpaceOptions): DiskSpace {
  const { dir, floorBytes, sampleEveryMs = 1_000, freeBytesOf = statfsFree, monotonic = () => performance.now(), log = () => {} } = options;
  let sampled = Number.POSITIVE_INFINITY;
  let sampledAt = Number.NEGATIVE_INFINITY;
  let sampling: Promise<void> | undefined;
  /** taken and not given back: maybe not written yet */
  let taken = 0;
  /** given back since the sample in use started: written, and not in that sample */
  let writtenSinceSample = 0;
  /** given back since the running sample started */
  let writtenSinceNextSample = 0;

  function sample(): Promise<void> {
    sampling ??= (async () => {
      writtenSinceNextSample = 0;
      try {
        const free = await freeBytesOf(dir);
        sampled = free;
        sampledAt = monotonic();
        writtenSinceSample = writtenSinceNextSample;
      } catch (error) {
        log('free disk space unknown', error);
      } finally {
        sampling = undefined;
      }
    })();
    return sampling;
  }

  function free(): number {
    if (floorBytes === 0) return Number.POSITIVE_INFINITY;
    if (monotonic() - sampledAt > sampleEveryMs) void sample();
    return sampled - taken - writtenSinceSample;
  }

  return {
    floorBytes,
    tryTake(bytes) {
      if (floorBytes > 0 && free() - bytes < floorBytes) return false;
      taken += bytes;
      return true;
    },
    give(bytes) {
      taken -= bytes;
      writtenSinceSample += bytes;
      if (sampling) writtenSinceNextSample += bytes;
    },
    belowFloor: () => floorBytes > 0 && free() < floorBytes,
    free,
    sample: () => (floorBytes > 0 ? sample() : Promise.resolve()),
    async start() {
      if (floorBytes > 0) await sample();
    },
  };
}
