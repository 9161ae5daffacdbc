import type { DomainEvent, DomainEventType } from '../src/domain/events.js';
import type { RecordedEvent } from '../src/ports/eventStore.js';

/**
 * A projection is data plus pure functions: which events it handles, which documents an event
 * touches, and how a document changes. The runner does all I/O.
 */
export interface ProjectionDefinition<D = unknown> {
  name: string;
  version: number;
  handles: readonly DomainEventType[];
  documentIds(event: DomainEvent): readonly string[];
  reduce(doc: D | undefined, event: DomainEvent, context: { id: string; recorded: RecordedEvent }): D | undefined;
}

/** Versioned names, so version N+1 can be rebuilt beside N. */
export const collectionOf = (p: Pick<ProjectionDefinition, 'name' | 'version'>) => `${p.name}_v${p.version}`;
export const checkpointOf = collectionOf;
