import { WrongExpectedRevision, type EventMetadata, type EventStore } from '../../ports/eventStore.js';
import type { BlobStore } from '../../ports/blobStore.js';
import { dataItemStream, type DataItemId } from '../../domain/ids.js';
import type { NestedItemsIndexed } from '../../domain/dataItem/events.js';
import { toNewEvent } from '../../domain/events.js';
import { DEFAULT_NESTED_LIMITS, findNestedItems, type IndexedRoot, type NestedIndex, type NestedLimits } from './findNested.js';
import { isBundle } from './bundleTags.js';
import { uuidFromName } from './eventIds.js';

/**
 * Items per event: a bundle of 10000 items would make one event of about 3 MB; in parts, each
 * event stays readable in a history and under the per-event limits of the scale-out store.
 */
export const ITEMS_PER_EVENT = 1000;

export interface RecordNestedDeps {
  eventStore: EventStore;
  blobStore: BlobStore;
  limits?: NestedLimits;
  now?: () => number;
}

/** The events recording `index`, in parts; the reasons for what was left out go with the first. */
export function nestedItemsIndexedEvents(rootId: string, index: NestedIndex, timestamp: number): NestedItemsIndexed[] {
  const parts: NestedItemsIndexed[] = [];
  for (let at = 0; at === 0 || at < index.items.length; at += ITEMS_PER_EVENT) {
    const unindexed = at === 0 && index.unindexed.length > 0 ? { unindexed: index.unindexed } : {};
    const items = index.items.slice(at, at + ITEMS_PER_EVENT);
    parts.push({ type: 'NestedItemsIndexed', data: { id: rootId, items, ...unindexed, timestamp } });
  }
  return parts;
}

/**
 * Indexes the items nested in a just-accepted item whose payload is a bundle, and records them on
 * its stream right after `DataItemAccepted` (expected revision 0). Returns the position of the
 * record, or undefined when the item is not a bundle or its stream has moved on (it was indexed
 * already: the record is not written twice).
 */
export async function recordNestedItems(
  deps: RecordNestedDeps,
  root: IndexedRoot,
  metadata: Omit<EventMetadata, 'schemaVersion'>,
): Promise<{ position: bigint; index: NestedIndex } | undefined> {
  if (!isBundle(root.tags)) return undefined;
  const index = await findNestedItems(deps.blobStore, root, deps.limits ?? DEFAULT_NESTED_LIMITS);
  const events = nestedItemsIndexedEvents(root.id, index, (deps.now ?? Date.now)()).map((event, part) =>
    toNewEvent(event, uuidFromName(`NestedItemsIndexed/${root.id}/${part}`), metadata),
  );
  try {
    const { position } = await deps.eventStore.append(dataItemStream(root.id as DataItemId), events, 0n);
    return { position, index };
  } catch (error) {
    if (error instanceof WrongExpectedRevision) return undefined;
    throw error;
  }
}
