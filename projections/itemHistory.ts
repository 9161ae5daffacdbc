import { match } from 'ts-pattern';
import type { DomainEvent } from '../src/domain/events.js';
import type { RecordedEvent } from '../src/ports/eventStore.js';
import { damageOf, factsOf } from '../src/domain/facts.js';
import type { ProjectionDefinition } from './definition.js';

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

type ItemHistoryEvent = Extract<
  DomainEvent,
  {
    type:
      | 'DataItemAccepted'
      | 'NestedItemsIndexed'
      | 'DataItemFailed'
      | 'DataItemDamaged'
      | 'DataItemRepaired'
      | 'DataItemRequeued'
      | 'ReservationSettled'
      | 'ReservationReleased'
      | 'UploadValidated'
      | 'UploadFinalized'
      | 'UploadUnderfunded'
      | 'BundlePlanned'
      | 'BundlePrepared'
      | 'BundlePermanent'
      | 'BundleDropped';
  }
>;

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

/** what the event says about item `id` (a bundle event concerns many items; the line is this one's) */
const summaryOf = (event: ItemHistoryEvent, id: string): string =>
  match(event)
    .returnType<string>()
    .with({ type: 'DataItemAccepted' }, ({ data }) => accepted(data))
    .with({ type: 'NestedItemsIndexed' }, (e) => `payload is a bundle: ${factsOf(e)}`)
    .with({ type: 'DataItemFailed' }, (e) => factsOf(e))
    .with({ type: 'DataItemDamaged' }, ({ data: d }) => `${damageOf(d)}: left the bundle queue; it is never posted until the same item is uploaded again`)
    .with({ type: 'DataItemRepaired' }, ({ data: d }) =>
      `repaired: its accepted bytes stored again${d.uploadId !== undefined ? ` by multi-part upload ${d.uploadId}` : ' by a new upload'}; back in the bundle queue`,
    )
    .with(
      { type: 'DataItemRequeued' },
      ({ data: d }) => `requeued by ${d.by}: ${d.reason}; back in the bundle queue (it had failed: ${d.previousFailure})`,
    )
    .with({ type: 'ReservationSettled' }, ({ data: d }) => `${d.winc} winc settled: charged to ${d.address}`)
    .with({ type: 'ReservationReleased' }, ({ data: d }) => `${d.winc} winc released on ${d.address}: ${d.reason}`)
    .with({ type: 'UploadValidated' }, ({ data: d }) => `multi-part upload ${d.uploadId} verified: ${d.size} bytes`)
    .with(
      { type: 'UploadFinalized' },
      ({ data: d }) => `multi-part upload ${d.uploadId} finalized${d.existed ? ' (the item was already stored)' : ''}`,
    )
    .with({ type: 'UploadUnderfunded' }, ({ data: d }) => `multi-part upload ${d.uploadId}: nobody could pay`)
    .with({ type: 'BundlePlanned' }, ({ data: d }) => {
      const offset = offsetIn(d, id);
      return `planned into bundle ${d.planId} at offset ${offset ?? '?'} (${countOf(d.items.length, 'item')}, ${d.totalSize} bytes)`;
    })
    .with({ type: 'BundlePrepared' }, ({ data: d }) => `bundle ${d.planId} signed as transaction ${d.txId}`)
    .with(
      { type: 'BundlePermanent' },
      ({ data: d }) => `permanent: transaction ${d.txId} in block ${d.blockHeight}, ${d.confirmations} confirmations`,
    )
    .with({ type: 'BundleDropped' }, ({ data: d }) => {
      if (!d.damagedItemIds) return `bundle ${d.planId} dropped: ${d.reason}; back to the queue`;
      return d.damagedItemIds.includes(id)
        ? `bundle ${d.planId} dropped without this item, whose stored bytes are damaged`
        : `bundle ${d.planId} dropped for another item's damaged bytes; back to the queue (not counted as an attempt)`;
    })
    .exhaustive();

/** the item an event concerns, or with a bundle event every item of the bundle */
const itemIdsOf = (event: ItemHistoryEvent): readonly string[] =>
  match(event)
    .returnType<readonly string[]>()
    .with(
      { type: 'DataItemAccepted' },
      { type: 'NestedItemsIndexed' },
      { type: 'DataItemFailed' },
      { type: 'DataItemDamaged' },
      { type: 'DataItemRepaired' },
      { type: 'DataItemRequeued' },
      (e) => [e.data.id],
    )
    .with(
      { type: 'ReservationSettled' },
      { type: 'ReservationReleased' },
      { type: 'UploadValidated' },
      { type: 'UploadFinalized' },
      { type: 'UploadUnderfunded' },
      (e) => [e.data.dataItemId],
    )
    .with({ type: 'BundlePlanned' }, (e) => e.data.items.map((i) => i.id))
    .with({ type: 'BundlePrepared' }, { type: 'BundlePermanent' }, { type: 'BundleDropped' }, (e) => e.data.itemIds)
    .exhaustive();

/**
 * The item's timeline, keyed by item id. A bundle's events name all its items (up to 10000): each
 * item's document gets one short entry, nothing proportional to the bundle. A multi-part
 * verification starts the document before the acceptance. Account events only annotate an item
 * already known: a reservation precedes every upload, also those refused or abandoned, and would
 * otherwise make a document per attempt (the acceptance line names the price and the payer).
 */
export const itemHistoryProjection: ProjectionDefinition<ItemHistoryDocument, ItemHistoryEvent> = {
  name: 'item-history',
  version: 1,
  handles: [
    'DataItemAccepted',
    'NestedItemsIndexed',
    'DataItemFailed',
    'DataItemDamaged',
    'DataItemRepaired',
    'DataItemRequeued',
    'ReservationSettled',
    'ReservationReleased',
    'UploadValidated',
    'UploadFinalized',
    'UploadUnderfunded',
    'BundlePlanned',
    'BundlePrepared',
    'BundlePermanent',
    'BundleDropped',
  ],
  documentIds: itemIdsOf,
  reduce: (doc, event, { id, recorded }) => {
    if (!doc && (event.type === 'ReservationSettled' || event.type === 'ReservationReleased')) return undefined;
    const current: ItemHistoryDocument = doc ?? { entries: [], planIds: [] };
    const entries = [...current.entries, entryOf(event.type, recorded, event.data.timestamp, summaryOf(event, id))];
    const planIds =
      event.type === 'BundlePlanned' && !current.planIds.includes(event.data.planId) ? [...current.planIds, event.data.planId] : current.planIds;
    const uploadId = event.type === 'DataItemAccepted' ? (event.data.uploadId ?? current.uploadId) : current.uploadId;
    return { entries, planIds, ...(uploadId !== undefined ? { uploadId } : {}) };
  },
};
