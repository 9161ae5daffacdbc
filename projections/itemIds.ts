import type { HandledEvent } from './definition.js';

/** the events that concern data items: theirs, their reservations, charges' refunds and uploads, and their bundles' */
export const ITEM_EVENT_TYPES = [
  'DataItemAccepted',
  'NestedItemsIndexed',
  'DataItemFailed',
  'DataItemDamaged',
  'DataItemRepaired',
  'DataItemRequeued',
  'DataItemQuarantined',
  'DataItemReleased',
  'ReservationSettled',
  'ReservationReleased',
  'ChargeRefunded',
  'ItemRecharged',
  'UploadValidated',
  'UploadFinalized',
  'UploadUnderfunded',
  'BundlePlanned',
  'BundlePrepared',
  'BundlePermanent',
  'BundleDropped',
] as const;
export type ItemEvent = HandledEvent<typeof ITEM_EVENT_TYPES>;

/**
 * The items an event concerns, or with a bundle event every item of the bundle: the document ids of
 * the read models keyed by item. A switch (exhaustive: the return type and the linter's check), not a
 * ts-pattern match: a rebuild asks it of every item event.
 */
export function itemIdsOf(event: ItemEvent): readonly string[] {
  switch (event.type) {
    case 'DataItemAccepted':
    case 'NestedItemsIndexed':
    case 'DataItemFailed':
    case 'DataItemDamaged':
    case 'DataItemRepaired':
    case 'DataItemRequeued':
    case 'DataItemQuarantined':
    case 'DataItemReleased':
      return [event.data.id];
    case 'ReservationSettled':
    case 'ReservationReleased':
    case 'ChargeRefunded':
    case 'ItemRecharged':
    case 'UploadValidated':
    case 'UploadFinalized':
    case 'UploadUnderfunded':
      return [event.data.dataItemId];
    case 'BundlePlanned':
      return event.data.items.map((i) => i.id);
    case 'BundlePrepared':
    case 'BundlePermanent':
    case 'BundleDropped':
      return event.data.itemIds;
  }
}
