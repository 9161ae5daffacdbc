import { match } from 'ts-pattern';
import type { DomainEvent } from '../src/domain/events.js';
import type { ProjectionDefinition } from './definition.js';

/** Accepted items and the live bundle plan holding each (none: waiting to be bundled). */
export interface QueuedItem {
  size: number;
  acceptedAt: number;
  /** bundles of this item that were dropped */
  attempts: number;
  planId?: string;
}

type QueueEvent = Extract<DomainEvent, { type: 'DataItemAccepted' | 'DataItemFailed' | 'BundlePlanned' | 'BundlePermanent' | 'BundleDropped' }>;

export const bundleQueueProjection: ProjectionDefinition<QueuedItem, QueueEvent> = {
  name: 'bundle-queue',
  version: 1,
  handles: ['DataItemAccepted', 'DataItemFailed', 'BundlePlanned', 'BundlePermanent', 'BundleDropped'],
  documentIds: (event) =>
    match(event)
      .returnType<readonly string[]>()
      .with({ type: 'DataItemAccepted' }, { type: 'DataItemFailed' }, (e) => [e.data.id])
      .with({ type: 'BundlePlanned' }, (e) => e.data.items.map((i) => i.id))
      .with({ type: 'BundlePermanent' }, { type: 'BundleDropped' }, (e) => e.data.itemIds)
      .exhaustive(),
  reduce: (doc, event) => {
    if (event.type === 'DataItemAccepted') return doc ?? { size: event.data.rawContentLength, acceptedAt: event.data.timestamp, attempts: 0 };
    if (!doc) return doc;
    return match(event)
      .returnType<QueuedItem | undefined>()
      .with({ type: 'DataItemFailed' }, () => undefined)
      .with({ type: 'BundlePlanned' }, ({ data }) => ({ ...doc, planId: data.planId }))
      .with({ type: 'BundlePermanent' }, ({ data }) => (doc.planId === data.planId ? undefined : doc))
      .with({ type: 'BundleDropped' }, ({ data }) => {
        if (doc.planId !== data.planId) return doc;
        const { planId: _, ...rest } = doc;
        return { ...rest, attempts: doc.attempts + 1 };
      })
      .exhaustive();
  },
};
