/** From the client's resolved events to the port's RecordedEvent, and the other way for new events. */
import { jsonEvent, type JSONType, type ResolvedEvent, type AllStreamResolvedEvent } from '@eventstore/db-client';
import type { EventMetadata, NewEvent, RecordedEvent, StreamName } from '../../ports/eventStore.js';

/** Engine events (`$metadata`, `$statsCollected`, links `$>` ...) never reach the service. */
export const isSystemType = (type: string) => type.startsWith('$');

export function toEventData(event: NewEvent) {
  return jsonEvent({
    // The port's id is passed as the event id, so the server recognises a retried append.
    id: event.id,
    type: event.type,
    // The client stringifies whatever it is given; its JSONType only narrows what TypeScript accepts.
    data: (event.data ?? null) as JSONType,
    metadata: event.metadata,
  });
}

/** undefined for what the port does not show: system events, and links whose event is gone */
export function toRecordedEvent(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | undefined {
  const event = resolved.event;
  if (!event || isSystemType(event.type)) return undefined;
  // The position of $all is the commit position; reads of a stream carry it too (servers from 22.6 on).
  const position = event.position?.commit ?? resolved.commitPosition;
  if (position === undefined) {
    throw new Error(`EventStoreDB gave no position for event ${event.id} of ${event.streamId}: server too old`);
  }
  return {
    id: event.id,
    type: event.type,
    data: event.isJson ? event.data : null,
    metadata: event.metadata as unknown as EventMetadata,
    streamName: event.streamId as StreamName,
    revision: event.revision,
    position,
    created: event.created.getTime(),
  };
}
