import type { Logger } from '../log.js';
import type { BlobStore, ListedBlob } from '../ports/blobStore.js';
import { orphanBlobs, whyOrphan, type OrphanBlob, type OwnerReads } from './orphanBlobs.js';
import { apartFromAcceptances } from './acceptance/unacceptedBytes.js';

export interface BlobSweepDeps {
  eventStore: OwnerReads;
  blobStore: Pick<BlobStore, 'list' | 'delete'>;
  /**
   * How long a blob may be in flight: an item's bytes are committed before its acceptance is
   * appended, a chunk's before it is recorded. A blob is removed only when it was last changed at
   * least this long ago by the wall clock AND a pass of this process saw it orphaned, unchanged, at
   * least this long ago by the monotonic clock: a step of the wall clock (a file's time is the wall
   * clock's) alone never makes a blob old enough.
   */
  graceMs: number;
  /** the service's wall clock, which blobs' `modifiedAt` is read against */
  now: () => number;
  /** a monotonic clock in ms (default performance.now) */
  monotonic?: () => number;
  /** orphans remembered from one pass to the next; those past it wait for a later pass */
  maxRemembered?: number;
  log: Pick<Logger, 'info' | 'debug'>;
  /** a blob was removed (metrics) */
  removed?: (orphan: OrphanBlob) => void;
}

export interface SweepSummary {
  /** blobs under items/ and uploads/ */
  listed: number;
  /** of them, changed within the grace period: not judged */
  young: number;
  /** orphans seen this pass, removed or not */
  orphans: number;
  removed: number;
  /** keys this version never writes: left to the operator (the audit names them) */
  foreign: number;
}

/** a blob as a pass saw it orphaned: its version (time and size) and when, by the monotonic clock */
interface Sighting {
  modifiedAt: number;
  size: number;
  seenAt: number;
}

const DEFAULT_MAX_REMEMBERED = 100_000;

/**
 * Removes the blobs no event owns (src/app/orphanBlobs.ts: what the audit names `blob-orphan`) that a
 * crash left: an item's bytes committed before an acceptance the crash cut, an upload's chunks whose
 * deletion it cut. A key the service never writes is left alone (a newer version sharing the store
 * may write it). Never the bytes of an accepted item: an item's stream is read again just before its
 * bytes are deleted, apart from this process's acceptances of it (one in flight finishes first).
 * Another process's acceptance in flight is waited out by the grace period; what stays open is
 * another process committing the very same item again between that last read and the deletion (a
 * few milliseconds), or an append of unknown outcome (EventStoreDB) landing after it: that acceptance
 * would then find no bytes, which the bundler records as damage that an upload of the item repairs. A pass walks the store's listing (never held in memory); what
 * it remembers between passes is bounded by `maxRemembered`.
 */
export function createBlobSweep(deps: BlobSweepDeps) {
  const monotonic = deps.monotonic ?? (() => performance.now());
  const maxRemembered = deps.maxRemembered ?? DEFAULT_MAX_REMEMBERED;
  let sightings = new Map<string, Sighting>();

  /** whether a pass saw this version of the blob orphaned a grace period ago; remembers it in `next` */
  function longOrphaned(blob: ListedBlob, next: Map<string, Sighting>, at: number): boolean {
    const before = sightings.get(blob.key);
    const same = before !== undefined && before.modifiedAt === blob.modifiedAt && before.size === blob.size;
    if (same && at - before.seenAt >= deps.graceMs) return true;
    if (next.size < maxRemembered) next.set(blob.key, same ? before : { modifiedAt: blob.modifiedAt, size: blob.size, seenAt: at });
    return false;
  }

  /** deletes the blob if no event owns it still, apart from this process's acceptances of its item */
  async function remove(orphan: OrphanBlob): Promise<boolean> {
    const { key } = orphan.blob;
    const removeIfOrphan = async () => {
      if ((await whyOrphan(deps.eventStore, key)) === undefined) return false;
      await deps.blobStore.delete(key);
      return true;
    };
    return key.startsWith('items/') ? apartFromAcceptances(orphan.id, removeIfOrphan) : removeIfOrphan();
  }

  return {
    /** one walk of the store: removes the orphans seen a grace period ago, remembers the others; `signal` ends it early */
    async pass(signal?: AbortSignal): Promise<SweepSummary> {
      const summary: SweepSummary = { listed: 0, young: 0, orphans: 0, removed: 0, foreign: 0 };
      const next = new Map<string, Sighting>();
      const now = deps.now();
      const judged = (blob: ListedBlob) => {
        summary.listed += 1;
        if (now - blob.modifiedAt >= deps.graceMs) return true;
        summary.young += 1;
        return false;
      };
      try {
        for await (const orphan of orphanBlobs(deps, judged)) {
          if (signal?.aborted) break;
          if (orphan.foreign) {
            summary.foreign += 1;
            continue;
          }
          summary.orphans += 1;
          if (!longOrphaned(orphan.blob, next, monotonic()) || !(await remove(orphan))) continue;
          summary.removed += 1;
          deps.log.debug('orphan blob removed', { key: orphan.blob.key, id: orphan.id, reason: orphan.reason, size: orphan.blob.size });
          deps.removed?.(orphan);
        }
      } finally {
        // a pass cut short keeps what it saw (as true as a whole pass's); what it did not reach is seen anew
        sightings = next;
      }
      deps.log.info('orphan blob sweep', { ...summary, waiting: summary.orphans - summary.removed, graceMs: deps.graceMs });
      return summary;
    },
  };
}
