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
  /** documents that copy part of another document of this projection, which events name alone (see Followers) */
  followers?: Followers<D, E>;
}

/**
 * Documents that follow another of the same projection, their leader: a nested item sorts and is filtered
 * by its root's block, though the event that mines the root (`BundlePermanent`) names top-level items only.
 * After an event changed the documents it names, each of them that leads has its followers brought along
 * with `follow`, in the same position of `$all`, so the result is the same however the events are batched.
 * Followers are found in the documents the batch holds and, for `'all'`, under the index key `keyOf(leader)`
 * in the store (every follower must carry it in `indexOf`): a bounded number of index reads per page, never
 * a list kept in the leader, which may lead thousands.
 */
export interface Followers<D, E extends DomainEvent> {
  /** the leader `doc` follows, if any */
  leaderOf(doc: D): string | undefined;
  /** the index key every follower of `leaderId` carries */
  keyOf(leaderId: string): string;
  /**
   * After `event` changed leader `leaderId` to `leader`, which of its followers change: `'all'` of them,
   * those among the event's own documents (`'named'`), or none
   */
  after(event: E, leaderId: string, leader: D | undefined): 'all' | 'named' | 'none';
  /** the follower `doc` (of `id`) as its leader now makes it */
  follow(doc: D, leader: D | undefined, context: { id: string; leaderId: string }): D;
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
