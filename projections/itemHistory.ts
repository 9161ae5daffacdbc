import type { DomainEvent } from '../src/domain/events.js';
import type { RecordedEvent } from '../src/ports/eventStore.js';
import { damageOf, factsOf } from '../src/domain/facts.js';
import type { ProjectionDefinition } from './definition.js';
import { ITEM_EVENT_TYPES, itemIdsOf, type ItemEvent } from './itemIds.js';

/** One line of a timeline: when, what, and a sentence about it from the subject's point of view. */
export interface HistoryEntry {
  /** the event's position in the store, as a decimal string: timelines merged from several read models sort by it */
  position: string;
  /** the event's own time (ms) */
  at: number;
  type: string;
  summary: string;
}

/** Everything that happened to one data item, for the dashboard's item page. */
export interface ItemHistoryDocument {
  entries: HistoryEntry[];
  /**
   * every bundle plan the item was put in, oldest first: the bundle-history read model has those
   * plans' own steps (posted, seeded, confirmed), whose events name no item
   */
  planIds: string[];
  /** the multi-part upload the item came through */
  uploadId?: string;
}

/** `1 item`, `2 items` */
export const countOf = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

export const entryOf = (type: string, recorded: RecordedEvent, at: number, summary: string): HistoryEntry => ({
  position: recorded.position.toString(),
  at,
  type,
  summary,
});

type ItemHistoryEvent = ItemEvent;

const accepted = (d: Extract<DomainEvent, { type: 'DataItemAccepted' }>['data']) =>
  [
    `accepted: ${d.rawContentLength} bytes of ${d.payloadContentType || 'no content type'}`,
    d.payer !== undefined ? `${d.winc} winc charged to ${d.payer}` : `${d.winc} winc (free)`,
    ...(d.uploadId !== undefined ? [`through multi-part upload ${d.uploadId}`] : []),
  ].join(', ');

type Planned = Extract<DomainEvent, { type: 'BundlePlanned' }>['data'];
// Each of a plan's (up to 10000) items looks its offset up: an index built once per event keeps
// that linear in the plan's size. Weak, so it goes with the event.
const offsets = new WeakMap<Planned, Map<string, number>>();
function offsetIn(plan: Planned, id: string): number | undefined {
  let index = offsets.get(plan);
  if (!index) {
    index = new Map(plan.items.map((i) => [i.id, i.offset]));
    offsets.set(plan, index);
  }
  return index.get(id);
}

// Switches (exhaustive: the return types and the linter's switch-exhaustiveness-check), not ts-pattern
// matches: a rebuild asks these of every item and account event, and the matches' builders were a
// tenth of its time.

/** what the event says about item `id` (a bundle event concerns many items; the line is this one's) */
function summaryOf(event: ItemHistoryEvent, id: string): string {
  switch (event.type) {
    case 'DataItemAccepted':
      return accepted(event.data);
    case 'NestedItemsIndexed':
      return `payload is a bundle: ${factsOf(event)}`;
    case 'DataItemFailed':
      return factsOf(event);
    case 'DataItemDamaged':
      return `${damageOf(event.data)}: left the bundle queue; it is never posted until the same item is uploaded again`;
    case 'DataItemRepaired': {
      const d = event.data;
      return `repaired: its accepted bytes stored again${d.uploadId !== undefined ? ` by multi-part upload ${d.uploadId}` : ' by a new upload'}; back in the bundle queue`;
    }
    case 'DataItemRequeued': {
      const d = event.data;
      return `requeued by ${d.by}: ${d.reason}; back in the bundle queue (it had failed: ${d.previousFailure})`;
    }
    case 'DataItemQuarantined': {
      const d = event.data;
      return `quarantined by ${d.by}: ${d.reason}${d.rule !== undefined ? ` (rule ${d.rule})` : ''}; held out of bundles and reads (451) until released`;
    }
    case 'DataItemReleased': {
      const d = event.data;
      return d.refused
        ? `hold by ${d.by} refused: bundle ${d.refused.planId} was signed as transaction ${d.refused.txId} first; it goes to Arweave`
        : `released from quarantine by ${d.by}: ${d.reason}; back in the bundle queue`;
    }
    case 'ReservationSettled':
      return `${event.data.winc} winc settled: charged to ${event.data.address}`;
    case 'ReservationReleased':
      return `${event.data.winc} winc released on ${event.data.address}: ${event.data.reason}`;
    case 'ChargeRefunded': {
      const d = event.data;
      return `${d.winc} winc refunded to ${d.address} for failure ${d.failure}: ${d.reason}`;
    }
    case 'ItemRecharged': {
      const d = event.data;
      return `${d.winc} winc charged again to ${d.address} for its requeue by ${d.by} (failure ${d.failure} refunded)`;
    }
    case 'UploadValidated':
      return `multi-part upload ${event.data.uploadId} verified: ${event.data.size} bytes`;
    case 'UploadFinalized':
      return `multi-part upload ${event.data.uploadId} finalized${event.data.existed ? ' (the item was already stored)' : ''}`;
    case 'UploadUnderfunded':
      return `multi-part upload ${event.data.uploadId}: nobody could pay`;
    case 'BundlePlanned': {
      const d = event.data;
      const offset = offsetIn(d, id);
      return `planned into bundle ${d.planId} at offset ${offset ?? '?'} (${countOf(d.items.length, 'item')}, ${d.totalSize} bytes)`;
    }
    case 'BundlePrepared':
      return `bundle ${event.data.planId} signed as transaction ${event.data.txId}`;
    case 'BundlePermanent': {
      const d = event.data;
      return `permanent: transaction ${d.txId} in block ${d.blockHeight}, ${d.confirmations} confirmations`;
    }
    case 'BundleDropped': {
      const d = event.data;
      if (!d.damagedItemIds) return `bundle ${d.planId} dropped: ${d.reason}; back to the queue`;
      return d.damagedItemIds.includes(id)
        ? `bundle ${d.planId} dropped without this item, whose stored bytes are damaged`
        : `bundle ${d.planId} dropped for another item's damaged bytes; back to the queue (not counted as an attempt)`;
    }
  }
}

/**
 * The item's timeline, keyed by item id. A bundle's events name all its items (up to 10000): each
 * item's document gets one short entry, nothing proportional to the bundle. A multi-part
 * verification starts the document before the acceptance. Account events only annotate an item
 * already known: a reservation precedes every upload, also those refused or abandoned, and would
 * otherwise make a document per attempt (the acceptance line names the price and the payer). A refund
 * of a FAILED item's charge, and its charge again at a requeue, are lines of the item's timeline.
 */
export const itemHistoryProjection: ProjectionDefinition<ItemHistoryDocument, ItemHistoryEvent> = {
  name: 'item-history',
  // v2: refunds of the item's charge (ChargeRefunded, ItemRecharged) are on its timeline
  version: 2,
  // every event that concerns an item
  handles: ITEM_EVENT_TYPES,
  documentIds: itemIdsOf,
  reduce: (doc, event, { id, recorded }) => {
    if (
      !doc &&
      (event.type === 'ReservationSettled' || event.type === 'ReservationReleased' || event.type === 'ChargeRefunded' || event.type === 'ItemRecharged')
    ) {
      return undefined;
    }
    const current: ItemHistoryDocument = doc ?? { entries: [], planIds: [] };
    const entries = [...current.entries, entryOf(event.type, recorded, event.data.timestamp, summaryOf(event, id))];
    const planIds = event.type === 'BundlePlanned' && !current.planIds.includes(event.data.planId) ? [...current.planIds, event.data.planId] : current.planIds;
    const uploadId = event.type === 'DataItemAccepted' ? (event.data.uploadId ?? current.uploadId) : current.uploadId;
    return { entries, planIds, ...(uploadId !== undefined ? { uploadId } : {}) };
  },
};
