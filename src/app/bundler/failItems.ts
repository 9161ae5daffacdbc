import { dataItemStream, newEventId, type DataItemId } from '../../domain/ids.js';
import { toNewEvent } from '../../domain/events.js';
import { bundleQueueProjection, collectionOf, type QueuedItem } from '../../../projections/index.js';
import { loadDataItem } from '../acceptDataItem.js';
import { BUNDLER, type BundlerDeps } from './deps.js';

/**
 * After a drop: an item whose bundles were dropped `maxAttempts` times is FAILED (recorded on its own
 * stream, at its current revision) and leaves the queue.
 */
export async function failExhaustedItems(deps: BundlerDeps, itemIds: readonly string[]): Promise<number> {
  const queued = await deps.readStore.getMany<QueuedItem>(collectionOf(bundleQueueProjection), itemIds);
  let failed = 0;
  for (const [id, { doc }] of queued) {
    if (doc.planId || doc.damaged || doc.attempts < deps.settings.maxAttempts) continue;
    const state = await loadDataItem(deps.eventStore, id as DataItemId);
    if (state.status !== 'accepted' || state.failed) continue;
    let revision = -1n;
    for await (const e of deps.eventStore.readStream(dataItemStream(id as DataItemId))) revision = e.revision;
    const event = {
      type: 'DataItemFailed' as const,
      data: { id, attempts: doc.attempts, reason: `${doc.attempts} bundles dropped`, timestamp: (deps.now ?? Date.now)() },
    };
    const { position } = await deps.eventStore.append(dataItemStream(id as DataItemId), [toNewEvent(event, newEventId(), BUNDLER)], revision);
    await deps.awaitProjection?.(position);
    failed++;
  }
  return failed;
}
