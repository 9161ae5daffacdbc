import type { DiskSpace } from '../adapters/fs/diskSpace.js';
import type { UploadTally } from '../app/multipart/uploadTally.js';

/**
 * The temporary-space budget: bytes received and not yet accepted. Counted:
 * - bytes in flight in this process: single uploads and chunks, their content-length from the start,
 *   or the bytes received so far when they send none (given back when the request ends);
 * - multi-part data at rest: the recorded chunks of every upload not yet at an end, from the upload
 *   tally (which follows the event store, so every process counts every process's uploads, and
 *   uploads left before a restart count).
 * A client (`clientKeyOf`) may hold at most its share of the budget, so no client can take the whole
 * of it from the others; and the disk keeps its free-space floor (DiskSpace).
 */
export interface TempSpaceOptions {
  budgetBytes: number;
  /** what one client may hold: in flight from it, and at rest in the uploads it created */
  perClientBytes: number;
  disk: DiskSpace;
  /** absent: multi-part data at rest is not counted (a process that takes no chunks) */
  tally?: UploadTally;
}

export type Refusal = 'budget' | 'client' | 'disk';

export interface TempSpace {
  /** takes `bytes` for `client`: the reason it cannot when they do not fit (nothing taken), else undefined */
  tryTake(client: string, bytes: number): Refusal | undefined;
  give(client: string, bytes: number): void;
  /** bytes counted now: in flight, plus multi-part data at rest */
  used(): number;
  /** bytes counted for one client now */
  usedBy(client: string): number;
}

export function createTempSpace(options: TempSpaceOptions): TempSpace {
  const { budgetBytes, perClientBytes, disk, tally } = options;
  let inFlight = 0;
  const inFlightBy = new Map<string, number>();

  const used = () => inFlight + (tally?.totalBytes() ?? 0);
  const usedBy = (client: string) => (inFlightBy.get(client) ?? 0) + (tally?.usage(client).bytes ?? 0);

  return {
    tryTake(client, bytes) {
      if (used() + bytes > budgetBytes) return 'budget';
      if (usedBy(client) + bytes > perClientBytes) return 'client';
      // bytes in flight may not be on disk yet: they are taken off the free space too (erring low)
      if (!disk.tryTake(bytes)) return 'disk';
      inFlight += bytes;
      inFlightBy.set(client, (inFlightBy.get(client) ?? 0) + bytes);
      return undefined;
    },
    give(client, bytes) {
      if (bytes === 0) return;
      inFlight -= bytes;
      const left = (inFlightBy.get(client) ?? bytes) - bytes;
      if (left === 0) inFlightBy.delete(client);
      else inFlightBy.set(client, left);
      disk.give(bytes);
    },
    used,
    usedBy,
  };
}
