import { bundleQueueProjection, collectionOf, type QueuedItem } from '../../../projections/index.js';
import { BUNDLER, type BundlerDeps } from './deps.js';
import { fenceCheck } from './fence.js';

/**
 * After a drop: an item whose bundles were dropped `maxAttempts` times is FAILED (recorded on its own
 * stream by the item's decider) and leaves the queue. Under the bundler's fence, as its bundle
 * commands are: an instance that lost its lease fails no item.
 */
export async function failExhaustedItems(deps: BundlerDeps, itemIds: readonly string[]): Promise<number> {
  const queued = await deps.readStore.getMany<QueuedItem>(collectionOf(bundleQueueProjection), itemIds);
  let failed = 0;
  for (const [id, { doc }] of queued) {
    if (doc.planId || doc.damaged || doc.attempts < deps.settings.maxAttempts) continue;
    const reason = `${doc.attempts} bundles dropped`;
    const { position } = await deps.items.execute(
      { type: 'FailItem', data: { id, attempts: doc.attempts, reason, now: deps.now() } },
      BUNDLER,
      fenceCheck(deps),
    );
    if (position === undefined) continue;
    await deps.awaitProjection?.(position);
    failed++;
  }
  return failed;
}
