import { match } from 'ts-pattern';
import type { HandledEvent, ProjectionDefinition } from './definition.js';

/**
 * Accepted items whose payload is a bundle and whose nested index is not complete yet (its last
 * part not recorded). The process that accepted the item indexes it right after answering, so a
 * document lives here for as long as that takes; one that stays was left by a crash, a full queue or
 * a stop, and the nested-index recovery finishes it.
 */
export interface PendingNestedIndex {
  blobKey: string;
  rawContentLength: number;
  payloadDataStart: number;
  acceptedAt: number;
}

// an item that failed for good is never in a bundle transaction: its nested offsets are moot
const handles = ['DataItemAccepted', 'NestedItemsIndexed', 'DataItemFailed'] as const;

export const pendingNestedIndexProjection: ProjectionDefinition<PendingNestedIndex, HandledEvent<typeof handles>> = {
  name: 'pending-nested-index',
  version: 1,
  handles,
  documentIds: (event) => (event.type === 'DataItemAccepted' && !event.data.nestedBundle ? [] : [event.data.id]),
  reduce: (doc, event) =>
    match(event)
      .returnType<PendingNestedIndex | undefined>()
      .with({ type: 'DataItemAccepted' }, ({ data }) => ({
        blobKey: data.blobKey,
        rawContentLength: data.rawContentLength,
        payloadDataStart: data.payloadDataStart,
        acceptedAt: data.timestamp,
      }))
      // a part with more to follow: a crash before the last leaves the index to finish
      .with({ type: 'NestedItemsIndexed' }, ({ data }) => (data.more ? doc : undefined))
      .with({ type: 'DataItemFailed' }, () => undefined)
      .exhaustive(),
};
