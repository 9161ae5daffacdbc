import type { DomainEvent } from '../src/domain/events.js';
import type { RecordedEvent } from '../src/ports/eventStore.js';
import type { ProjectionDefinition } from './definition.js';

export interface PositionedDocument<D> {
  doc: D | undefined;
  position: bigint;
}

/** An event to apply; `ids`: its `documentIds`, when the caller already asked (they are not asked again). */
export interface EventToApply {
  event: DomainEvent;
  recorded: RecordedEvent;
  ids?: readonly string[];
}

/**
 * Applies events in order to the documents they touch, skipping any event a document already
 * reflects (its position is not newer), which is what makes a replay change nothing.
 * Mutates `docs`; returns the ids that changed.
 */
export function applyEvents<D, E extends DomainEvent>(
  p: ProjectionDefinition<D, E>,
  events: readonly EventToApply[],
  docs: Map<string, PositionedDocument<D>>,
): Set<string> {
  const changed = new Set<string>();
  for (const { event, recorded, ids } of events) {
    if (!isHandled(p, event)) continue;
    for (const id of ids ?? p.documentIds(event)) {
      const current = docs.get(id);
      if (current && current.position >= recorded.position) continue;
      docs.set(id, { doc: p.reduce(current?.doc, event, { id, recorded }), position: recorded.position });
      changed.add(id);
    }
  }
  return changed;
}

/** each projection's handled types as a set: asked once per event and projection on every batch */
const handledTypes = new WeakMap<object, ReadonlySet<string>>();
export function handledTypesOf(p: { handles: readonly string[] }): ReadonlySet<string> {
  let types = handledTypes.get(p);
  if (types === undefined) handledTypes.set(p, (types = new Set(p.handles)));
  return types;
}
export const handles = (p: { handles: readonly string[] }, type: string): boolean => handledTypesOf(p).has(type);

const isHandled = <E extends DomainEvent>(p: ProjectionDefinition<unknown, E>, event: DomainEvent): event is E => handles(p, event.type);
