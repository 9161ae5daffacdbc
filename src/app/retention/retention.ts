import type { ReadStore } from '../../ports/readStore.js';
import type { BlobStore } from '../../ports/blobStore.js';
import { collectionOf, retentionDueProjection, type RetentionDue } from '../../../projections/index.js';
import { DUE_KEY } from '../../../projections/retention.js';
import type { DataItemRepository } from '../acceptance/dataItems.js';
import type { BundleRepository } from '../bundles.js';
import { leasedPass } from '../periodic.js';

export interface RetentionOptions {
  readStore: Pick<ReadStore, 'findByKey'>;
  items: DataItemRepository;
  bundles: Pick<BundleRepository, 'read'>;
  blobStore: Pick<BlobStore, 'delete'>;
  /** RETAIN_PERMANENT_BYTES_MS: how long after its bundle's permanence an item's bytes are kept (never negative here) */
  retainMs: number;
  /**
   * The clock the recorded permanence times are compared with: a wall clock no step moves while the
   * process runs (`anchoredWall`, src/clock.ts), so an item's age grows with the monotonic clock and
   * a restart reads it again from the recorded time; ages keep the order of the permanence times
   */
  clock: () => number;
  /** resolves once the read models show the event at `position` (true) or gives up (false) */
  awaitProjection: (position: bigint) => Promise<boolean>;
  intervalMs: number;
  /** one active pass across processes (absent: always active) */
  holdLease?: () => Promise<boolean>;
  now: () => number;
  /** an item's bytes were retired (metrics) */
  retired?: (bytes: number) => void;
  log?: (message: string, error?: unknown) => void;
}

const PAGE = 200;
const meta = { correlationId: 'retention' };

/**
 * Gives up the local bytes of items permanent on Arweave for `retainMs`: appends `ItemBytesRetired`
 * on the item's stream, waits until the read models show it (from then on reads go to the gateway),
 * then deletes the blob. Event first (docs/decisions.md): a crash between the two leaves a blob
 * that the event already disowns, which the orphan sweep removes and the audit names meanwhile; a
 * crash before the event changes nothing, and the next pass does it all again.
 *
 * Never early: the permanence is read again from the bundle's own stream (permanent is final: no
 * drop or re-post follows it, src/domain/bundle/decider.ts), and the item's decider refuses while
 * anything on its stream still needs the bytes (its nested index unfinished, damaged, FAILED).
 * Reads under way keep theirs: a file open for a read keeps its bytes once unlinked, and one that
 * finds the blob gone reads the retirement the pass waited for.
 */
export function createRetention(options: RetentionOptions) {
  const { readStore, items, bundles, blobStore, retainMs, clock, awaitProjection, now, log = () => {} } = options;

  /** retires one item; true when its bytes were deleted by this call */
  async function retireOne(id: string, due: RetentionDue): Promise<boolean> {
    const bundle = await bundles.read(due.planId);
    const place = bundle?.status === 'permanent' && bundle.txId === due.bundleId ? bundle.items.find((i) => i.id === id) : undefined;
    if (!place) {
      log(`retention: ${id} is not in permanent bundle ${due.planId} as its read model says; kept`);
      return false;
    }
    const data = { id, planId: due.planId, bundleId: due.bundleId, startOffsetInRootBundle: place.offset, permanentAt: due.permanentAt, now: now() };
    const { events, state, position } = await items.execute({ type: 'RetireBytes', data }, meta);
    // nothing decided: still needed, or retired by a pass a crash cut before the read models showed it
    if (events.length === 0 && !(state.status === 'accepted' && state.retired)) return false;
    // retired by an earlier pass (cut, or its wait given up while the projector lagged): the read
    // models must show that event before the bytes go, as they must show a new one
    const shown = position ?? (await items.readWithPosition(id)).position;
    if (shown !== undefined && !(await awaitProjection(shown))) return false;
    if (state.status !== 'accepted') return false;
    await blobStore.delete(state.blobKey);
    options.retired?.(state.rawContentLength);
    return true;
  }

  /** one walk of the items due, oldest permanence first, up to the first whose time is not over */
  async function runOnce(): Promise<{ retired: number }> {
    let retired = 0;
    let after: string | undefined;
    for (;;) {
      const page = await readStore.findByKey<RetentionDue>(collectionOf(retentionDueProjection), DUE_KEY, {
        limit: PAGE,
        descending: false,
        ...(after !== undefined ? { after } : {}),
      });
      for (const { id, doc } of page) {
        if (clock() - doc.permanentAt < retainMs) return { retired };
        if (await retireOne(id, doc)) retired += 1;
      }
      if (page.length < PAGE) return { retired };
      after = page[page.length - 1]!.sort;
    }
  }

  return { runOnce, ...leasedPass('retention', options.intervalMs, options.holdLease, runOnce, log) };
}
