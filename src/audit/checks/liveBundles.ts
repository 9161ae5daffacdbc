import type { AuditEvent, AuditSink } from '../types.js';

/**
 * Invariant 5: no item is in two live bundles at once. The bundle streams are replayed in `$all`
 * order: an item may be planned again only after the plan holding it was dropped (or made
 * permanent). Memory: the items of live bundles only.
 */
export async function checkLiveBundles(events: AsyncIterable<AuditEvent>, sink: AuditSink): Promise<void> {
  const liveIn = new Map<string, string>();
  const end = (planId: string, itemIds: readonly string[]) => {
    for (const id of itemIds) if (liveIn.get(id) === planId) liveIn.delete(id);
  };
  for await (const { event } of events) {
    switch (event.type) {
      case 'BundlePlanned':
        for (const { id } of event.data.items) {
          const other = liveIn.get(id);
          if (other !== undefined && other !== event.data.planId) {
            sink.finding({ kind: 'item-in-two-bundles', id, detail: `planned in ${event.data.planId} while live in ${other}` });
          }
          liveIn.set(id, event.data.planId);
        }
        break;
      case 'BundlePermanent':
      case 'BundleDropped':
        end(event.data.planId, event.data.itemIds);
        break;
      default:
        break;
    }
  }
}
