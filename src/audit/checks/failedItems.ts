import type { AuditEvent, AuditSink } from '../types.js';

/**
 * A FAILED item is in no bundle again unless an operator requeued it: its failure told the client
 * (`GET /tx/:id/status`) that it will not be made permanent, and only a recorded requeue, saying who
 * and why, takes that back. A requeued item bundled afterwards is consistent.
 * Memory: the items FAILED at the moment only.
 */
export async function checkFailedItems(events: AsyncIterable<AuditEvent>, sink: AuditSink): Promise<void> {
  const failed = new Map<string, string>();
  for await (const { event } of events) {
    switch (event.type) {
      case 'DataItemFailed':
        failed.set(event.data.id, `failed ${new Date(event.data.timestamp).toISOString()}: ${event.data.reason}`);
        break;
      case 'DataItemRequeued':
        failed.delete(event.data.id);
        break;
      case 'BundlePlanned':
        for (const { id } of event.data.items) {
          const why = failed.get(id);
          if (why !== undefined)
            sink.finding({ kind: 'failed-item-planned', id, detail: `planned in ${event.data.planId} while FAILED (${why}), never requeued` });
        }
        break;
      default:
        break;
    }
  }
}
