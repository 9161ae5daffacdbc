import type { Receipt } from '../src/domain/receipt.js';
import type { DataItemEvent } from '../src/domain/dataItem/events.js';
import type { ProjectionDefinition } from './definition.js';

/** The receipt of each accepted item, for queries (commands read the item's own stream instead). */
export const receiptsProjection: ProjectionDefinition<Receipt, Extract<DataItemEvent, { type: 'DataItemAccepted' }>> = {
  name: 'receipts',
  version: 1,
  handles: ['DataItemAccepted'],
  // one type: no match needed (handles says which, and the event type says so too)
  documentIds: (event) => [event.data.id],
  reduce: (doc, event) => doc ?? event.data.receipt,
};
