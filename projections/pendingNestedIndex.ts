import type { DataItemAccepted, DataItemFailed, NestedItemsIndexed } from '../src/domain/dataItem/events.js';
import type { ProjectionDefinition } from './definition.js';

/**
 * Accepted items whose payload is a bundle and whose nested items are not recorded yet. The upload
 * records them before answering, so a document lives here for a moment; one that stays was left by a
 * crash between the acceptance and the index, and the nested-index recovery finishes it.
 */
export interface PendingNestedIndex {
  blobKey: string;
  rawContentLength: number;
  payloadDataStart: number;
  acceptedAt: number;
}

export const pendingNestedIndexProjection: ProjectionDefinition<PendingNestedIndex, DataItemAccepted | NestedItemsIndexed | DataItemFailed> = {
  name: 'pending-nested-index',
  version: 1,
  // an item that failed for good is never in a bundle transaction: its nested offsets are moot
  handles: ['DataItemAccepted', 'NestedItemsIndexed', 'DataItemFailed'],
  documentIds: (event) => (event.type === 'DataItemAccepted' && !event.data.nestedBundle ? [] : [event.data.id]),
  reduce: (_doc, event) =>
    event.type === 'DataItemAccepted'
      ? {
          blobKey: event.data.blobKey,
          rawContentLength: event.data.rawContentLength,
          payloadDataStart: event.data.payloadDataStart,
          acceptedAt: event.data.timestamp,
        }
      : undefined,
};
