import { match } from 'ts-pattern';
import type { Receipt } from '../src/domain/receipt.js';
import type { DataItemEvent } from '../src/domain/dataItem/events.js';
import type { ProjectionDefinition } from './definition.js';

/** The receipt of each accepted item, for queries (commands read the item's own stream instead). */
export const receiptsProjection: ProjectionDefinition<Receipt, Extract<DataItemEvent, { type: 'DataItemAccepted' }>> = {
  name: 'receipts',
  version: 1,
  handles: ['DataItemAccepted'],
  documentIds: (event) => match(event).with({ type: 'DataItemAccepted' }, (e) => [e.data.id]).exhaustive(),
  reduce: (doc, event) =>
    match(event)
      .with({ type: 'DataItemAccepted' }, ({ data }) => doc ?? data.receipt)
      .exhaustive(),
};
