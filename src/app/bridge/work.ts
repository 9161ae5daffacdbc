import type { EventStore, RecordedEvent } from '../../ports/eventStore.js';
import { fromRecorded } from '../../domain/events.js';
import { dataItemStream, itemBlobKey, type DataItemId } from '../../domain/ids.js';
import type { ItemPlace } from './opticalHeader.js';

/** The events whose items have headers to post: an acceptance (the item), a nested index's part (its items). */
const SOURCES: ReadonlySet<string> = new Set(['DataItemAccepted', 'NestedItemsIndexed']);

/** One item's header to post: where its bytes are, and the item whose stream records the outcome. */
export interface ItemToBridge extends ItemPlace {
  /** the stream's item: the item itself, or the root item it is nested in */
  rootId: string;
}

/**
 * The items of one recorded event whose headers are to be posted (none for any other event; the
 * type is looked at before anything is parsed, so the many other events cost nothing). A nested
 * item's bytes are in its root item's blob, at its offset there.
 */
export function itemsToBridge(recorded: RecordedEvent): ItemToBridge[] {
  if (!SOURCES.has(recorded.type)) return [];
  const event = fromRecorded(recorded);
  if (event?.type === 'DataItemAccepted') {
    const d = event.data;
    return [{ id: d.id, rootId: d.id, blobKey: d.blobKey, start: 0, rawContentLength: d.rawContentLength, payloadDataStart: d.payloadDataStart }];
  }
  if (event?.type === 'NestedItemsIndexed') {
    const rootId = event.data.id;
    return event.data.items.map((i) => ({
      id: i.id,
      rootId,
      blobKey: itemBlobKey(rootId),
      start: i.offsetInRootItem,
      rawContentLength: i.rawContentLength,
      payloadDataStart: i.payloadDataStart,
    }));
  }
  return [];
}

/**
 * The items a release (`DataItemReleased`) gives back to the bridge, which passed them over while they
 * were held: the released item and those nested in it, as its stream records them now, with the
 * `item host` pairs whose headers a gateway took already (before the hold: those are not posted again).
 */
export async function releasedItems(
  eventStore: Pick<EventStore, 'readStream'>,
  recorded: RecordedEvent,
): Promise<{ items: ItemToBridge[]; posted: Set<string> }> {
  const event = fromRecorded(recorded);
  if (event?.type !== 'DataItemReleased') return { items: [], posted: new Set() };
  const items: ItemToBridge[] = [];
  const posted = new Set<string>();
  for await (const e of eventStore.readStream(dataItemStream(event.data.id as DataItemId))) {
    items.push(...itemsToBridge(e));
    if (e.type !== 'DataItemBridged') continue;
    const bridged = fromRecorded(e);
    if (bridged?.type === 'DataItemBridged' && bridged.data.ok) for (const pair of bridgedPairs(e)) posted.add(pair);
  }
  return { items, posted };
}

/**
 * The items of an event whose headers are to be posted; for a release, read from its stream, with the
 * `item host` pairs a gateway took before the hold added to `posted` (those are not posted again).
 */
export async function itemsOf(eventStore: Pick<EventStore, 'readStream'>, recorded: RecordedEvent, posted: Set<string>): Promise<ItemToBridge[]> {
  if (recorded.type !== 'DataItemReleased') return itemsToBridge(recorded);
  const released = await releasedItems(eventStore, recorded);
  for (const pair of released.posted) posted.add(pair);
  return released.items;
}

/** `item host` pairs already recorded (`DataItemBridged`) by the event, so a restart posts them no more */
export function bridgedPairs(recorded: RecordedEvent): string[] {
  if (recorded.type !== 'DataItemBridged') return [];
  const event = fromRecorded(recorded);
  return event?.type === 'DataItemBridged' ? event.data.items.map((id) => pairKey(id, event.data.gateway)) : [];
}

export const pairKey = (itemId: string, host: string) => `${itemId} ${host}`;

/**
 * The positions the bridge has read, and how many items of each are not done yet: the checkpoint
 * (what a restart reads after) is the last position before the first one not done, so an item
 * never done (a crash, a lost lease) is read again, and nothing done is held in memory.
 */
export class ReadPositions {
  private readonly open: { position: bigint; left: number }[] = [];
  private head = 0;
  private lastRead: bigint;
  /** where every item before has been done */
  private done: bigint;

  constructor(after: bigint) {
    this.lastRead = after;
    this.done = after;
  }

  /** an event read with `items` items to post; returns its handle for `finish` (undefined when none) */
  read(position: bigint, items: number): { left: number } | undefined {
    this.lastRead = position;
    if (items === 0) {
      if (this.head === this.open.length) this.done = position;
      return undefined;
    }
    const entry = { position, left: items };
    this.open.push(entry);
    return entry;
  }

  /** one item of the event `entry` is done (its outcome recorded for every gateway) */
  finish(entry: { left: number }): void {
    entry.left--;
    while (this.head < this.open.length && this.open[this.head]!.left === 0) this.head++;
    if (this.head === this.open.length) {
      this.open.length = 0;
      this.head = 0;
      this.done = this.lastRead;
    } else {
      // every position before the first open one was read: the one just before it is done
      this.done = this.head > 0 ? this.open[this.head - 1]!.position : this.done;
      if (this.head > 1024) {
        this.open.splice(0, this.head);
        this.head = 0;
      }
    }
  }

  /** every event up to this position is done */
  checkpoint(): bigint {
    return this.done;
  }
}
