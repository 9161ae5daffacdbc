import type { Receipt } from '../src/domain/receipt.js';
import type { HandledEvent, ProjectionDefinition } from './definition.js';

const handles = ['DataItemAccepted'] as const;

/** The receipt of each accepted item, for queries (commands read the item's own stream instead). */
export const receiptsProjection: ProjectionDefinition<Receipt, HandledEvent<typeof handles>> = {
  name: 'receipts',
  version: 1,
  handles,
  // one type: no match needed (handles says which, and the event type says so too)
  documentIds: (event) => [event.data.id],
  reduce: (doc, event) => doc ?? event.data.receipt,
};
