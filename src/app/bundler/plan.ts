import { bundleLayout } from '../../bundling/index.js';
import { newPlanId } from '../../domain/bundle/ids.js';
import { packBundles, type Queued } from '../../domain/bundle/packing.js';
import { bundleQueueProjection, collectionOf, type QueuedItem } from '../../../projections/index.js';
import { BUNDLER, type BundlerDeps } from './deps.js';
import { failExhaustedItems } from './failItems.js';
import type { StampAges } from '../../clock.js';

/** Items waiting for a bundle, from the queue read model, and those out of bundle attempts. */
async function waiting(deps: BundlerDeps): Promise<{ queued: Queued[]; exhausted: string[] }> {
  const queued: Queued[] = [];
  const exhausted: string[] = [];
  let afterId: string | undefined;
  for (;;) {
    const page = await deps.readStore.scan<QueuedItem>(collectionOf(bundleQueueProjection), { ...(afterId ? { afterId } : {}), limit: 1000 });
    for (const { id, doc } of page) {
      // in a live plan, damaged (not planned until a new upload repairs it) or held (until released)
      if (doc.planId || doc.damaged || doc.held) continue;
      if (doc.attempts >= deps.settings.maxAttempts) exhausted.push(id);
      else queued.push({ id, size: doc.size, acceptedAt: doc.acceptedAt });
    }
    if (page.length < 1000) return { queued, exhausted };
    afterId = page[page.length - 1]!.id;
  }
}

/**
 * The queue read model is behind (a projector that lagged past its bounded wait, a restart that did
 * not catch up in time): it may still show items of plans already recorded as unplanned, and
 * planning from it would put them in a second live bundle. So planning waits until the read models
 * reflect `position` (the bundler's own last write; by default everything written so far) and
 * skips the pass otherwise.
 */
async function queueReflects(deps: BundlerDeps, position: bigint | undefined): Promise<boolean> {
  if (!deps.awaitProjection) return true;
  const target = position ?? (await deps.eventStore.headPosition());
  return target === 0n || (await deps.awaitProjection(target)) !== false;
}

/**
 * Plans the bundles that are due, offsets fixed here. Waits until the queue read model shows each
 * plan, so the next pass never plans an item twice (the bundler is a single instance). An item
 * dropped `maxAttempts` times is failed here rather than planned again (its failure may have been
 * missed: a crash right after the drop). `reflect`: see queueReflects.
 *
 * `waits`: how long each item has waited (BUNDLE_MAX_WAIT_MS), kept by the bundler from pass to pass:
 * on the monotonic clock once it has seen the item (src/clock.ts), so a wall clock set back a day does
 * not hold every small item that long. Without it, the wall clock's reading minus the acceptance.
 */
export async function planBundles(deps: BundlerDeps, reflect?: bigint, waits?: StampAges): Promise<string[]> {
  if (!(await queueReflects(deps, reflect))) {
    deps.log?.('bundler: read models behind the event store, planning skipped this pass');
    return [];
  }
  const now = deps.now();
  const { queued: found, exhausted } = await waiting(deps);
  const queued = waits ? found.map((item) => ({ ...item, acceptedAt: now - waits.ageOf(item.id, item.acceptedAt) })) : found;
  waits?.endPass();
  if (exhausted.length > 0) await failExhaustedItems(deps, exhausted);
  const planned: string[] = [];
  for (const items of packBundles(queued, deps.settings.limits, now)) {
    const layout = bundleLayout(items.map(({ id, size }) => ({ id, size })));
    const planId = newPlanId();
    const { position } = await deps.bundles.execute(
      {
        type: 'Plan',
        data: {
          planId,
          items: layout.items.map(({ id, size, offset }) => ({ id, size, offset })),
          headerSize: layout.headerSize,
          totalSize: layout.totalSize,
          now,
        },
      },
      BUNDLER,
    );
    if (position !== undefined) await deps.awaitProjection?.(position);
    planned.push(planId);
  }
  return planned;
}
