import type { DomainEvent } from '../src/domain/events.js';
import type { RecordedEvent } from '../src/ports/eventStore.js';
import type { DocumentIndex } from '../src/ports/readStore.js';

/**
 * A projection is data plus pure functions: which events it handles, which documents an event
 * touches, and how a document changes. The runner does all I/O.
 */
export interface ProjectionDefinition<D = unknown, E extends DomainEvent = DomainEvent> {
  name: string;
  version: number;
  /** the runner hands `documentIds` and `reduce` only events of these types */
  handles: readonly E['type'][];
  documentIds(event: E): readonly string[];
  reduce(doc: D | undefined, event: E, context: { id: string; recorded: RecordedEvent }): D | undefined;
  /** what the document is found by (`ReadStore.findByKey`), worked out again at every write of it; absent: by id only */
  indexOf?(doc: D, id: string): DocumentIndex;
}

/** a write of document `id` as `doc`, with its index keys when its projection has them */
export const indexed = (p: AnyProjection, id: string, doc: unknown): { index?: DocumentIndex } =>
  p.indexOf && doc !== undefined ? { index: p.indexOf(doc, id) } : {};

/**
 * The events of the types a projection lists, its event union inferred from the list, so the types are
 * spelled once: `const handles = ['A', 'B'] as const`, then `ProjectionDefinition<D, HandledEvent<typeof handles>>`.
 */
export type HandledEvent<Types extends readonly DomainEvent['type'][]> = Extract<DomainEvent, { type: Types[number] }>;

/** Any projection, whatever its document and event types (for lists of projections). */
export type AnyProjection = ProjectionDefinition<any, any>;

/** Versioned names, so version N+1 can be rebuilt beside N. */
export const collectionOf = (p: Pick<ProjectionDefinition, 'name' | 'version'>) => `${p.name}_v${p.version}`;
export const checkpointOf = collectionOf;
