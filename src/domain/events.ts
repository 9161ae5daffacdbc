import { z } from 'zod';
import type { EventMetadata, NewEvent, RecordedEvent } from '../ports/eventStore.js';
import { DataItemEvent } from './dataItem/events.js';
import { BundleEvent } from './bundle/events.js';
import { AccountEvent } from './account/events.js';
import { UploadEvent } from './upload/events.js';
import { BlocklistEvent } from './blocklist/events.js';
import { LeaseEvent } from './bundle/lease.js';
import { TopUpEvent } from './topUp/events.js';
import { X402PaymentEvent } from './x402/events.js';
import { schemaVersionOf, upcast } from './upcasters.js';

/**
 * Every event of the service, validated on the way in and on the way back. An old shape is upcast
 * (by its metadata's schemaVersion, see upcasters.ts) before validation, never rewritten in the store.
 */
export const DomainEvent = z.discriminatedUnion('type', [
  ...DataItemEvent.options,
  ...AccountEvent.options,
  ...UploadEvent.options,
  ...BundleEvent.options,
  ...BlocklistEvent.options,
  ...LeaseEvent.options,
  ...TopUpEvent.options,
  ...X402PaymentEvent.options,
]);
export type DomainEvent = z.infer<typeof DomainEvent>;
export type DomainEventType = DomainEvent['type'];

export interface StoredEvent<E extends DomainEvent = DomainEvent> {
  event: E;
  recorded: RecordedEvent;
}

export function toNewEvent(event: DomainEvent, id: string, metadata: Omit<EventMetadata, 'schemaVersion'>): NewEvent {
  return { id, type: event.type, data: DomainEvent.parse(event).data, metadata: { ...metadata, schemaVersion: schemaVersionOf(event.type) } };
}

const knownTypes = new Set<string>(DomainEvent.options.map((o) => o.shape.type.value));

/**
 * The domain event of a recorded one, in today's shape whatever shape it was stored in; undefined
 * for types this service does not know (other writers). Every reader of stored events comes here.
 */
export function fromRecorded(recorded: RecordedEvent): DomainEvent | undefined {
  if (!knownTypes.has(recorded.type)) return undefined;
  const data = upcast(recorded.type, recorded.data, recorded.metadata?.schemaVersion);
  return DomainEvent.parse({ type: recorded.type, data });
}
