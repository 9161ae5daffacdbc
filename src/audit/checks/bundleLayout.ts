import { bundleHeaderSize } from '../../bundling/layout.js';
import { dataItemStream, type DataItemId } from '../../domain/ids.js';
import type { EventStore } from '../../ports/eventStore.js';
import { parseRecorded } from '../parse.js';
import type { AuditEvent, AuditSink } from '../types.js';

export interface BundleLayoutDeps {
  eventStore: Pick<EventStore, 'readStream'>;
}

interface PlannedItem {
  id: string;
  size: number;
  offset: number;
}

/**
 * Invariant 4: every plan's offsets are the ANS-104 layout (a header of 32 + 64·n bytes, then the
 * items back to back in plan order) and each item's planned size is its accepted `rawContentLength`.
 *
 * Accepted sizes are kept only while an item waits for a bundle or sits in a live one (what the
 * bundle queue holds), so memory follows the queue, not the history; an item planned from outside
 * that window (a plan of a failed item, a corrupt plan) is looked up in its own stream.
 */
export async function checkBundleLayout(events: AsyncIterable<AuditEvent>, deps: BundleLayoutDeps, sink: AuditSink): Promise<void> {
  const waiting = new Map<string, number>();
  const live = new Map<string, Map<string, number>>();
  const acceptedSize = async (id: string) => waiting.get(id) ?? (await sizeInStream(deps.eventStore, id));

  for await (const { event } of events) {
    switch (event.type) {
      case 'DataItemAccepted':
        waiting.set(event.data.id, event.data.rawContentLength);
        break;
      case 'DataItemFailed':
        waiting.delete(event.data.id);
        break;
      // back in the queue: its next plan is checked against the size the requeue carries from the acceptance
      case 'DataItemRequeued':
        waiting.set(event.data.id, event.data.rawContentLength);
        break;
      case 'BundlePlanned': {
        const { planId, items, headerSize, totalSize } = event.data;
        sink.count('bundlePlans');
        sink.count('plannedItems', items.length);
        const problems = layoutProblems(items, headerSize, totalSize);
        if (problems.length > 0) sink.finding({ kind: 'bundle-layout', id: planId, detail: problems.join('; ') });
        const sizes = new Map<string, number>();
        for (const item of items) {
          const accepted = await acceptedSize(item.id);
          if (accepted === undefined) {
            sink.finding({ kind: 'bundle-item-unknown', id: item.id, detail: `planned in ${planId}, but never accepted` });
            continue;
          }
          if (accepted !== item.size) {
            sink.finding({ kind: 'bundle-item-size', id: item.id, detail: `planned in ${planId} with ${item.size} bytes, accepted with ${accepted}` });
          }
          sizes.set(item.id, accepted);
          waiting.delete(item.id);
        }
        live.set(planId, sizes);
        break;
      }
      case 'BundlePermanent':
        live.delete(event.data.planId);
        break;
      case 'BundleDropped': {
        // its items go back to the queue: the next plan holding them is checked against these sizes
        for (const [id, size] of live.get(event.data.planId) ?? []) waiting.set(id, size);
        live.delete(event.data.planId);
        break;
      }
      default:
        break;
    }
  }
}

/** what differs from the layout of `src/bundling/layout.ts`, computed again from the sizes */
export function layoutProblems(items: readonly PlannedItem[], headerSize: number, totalSize: number): string[] {
  const problems: string[] = [];
  const expectedHeader = bundleHeaderSize(items.length);
  if (headerSize !== expectedHeader) problems.push(`header of ${headerSize} bytes, ${items.length} items need ${expectedHeader}`);
  let offset = expectedHeader;
  const seen = new Set<string>();
  for (const [i, item] of items.entries()) {
    if (seen.has(item.id)) problems.push(`item ${item.id} is twice in the plan`);
    seen.add(item.id);
    if (item.offset !== offset) problems.push(`item ${i} (${item.id}) at offset ${item.offset}, expected ${offset}`);
    offset += item.size;
  }
  if (totalSize !== offset) problems.push(`total size ${totalSize}, expected ${offset}`);
  return problems;
}

async function sizeInStream(eventStore: BundleLayoutDeps['eventStore'], id: string): Promise<number | undefined> {
  for await (const recorded of eventStore.readStream(dataItemStream(id as DataItemId), { maxCount: 1 })) {
    const { event } = parseRecorded(recorded);
    if (event?.type === 'DataItemAccepted') return event.data.rawContentLength;
  }
  return undefined;
}
