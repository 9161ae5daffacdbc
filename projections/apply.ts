import type { DomainEvent } from '../src/domain/events.js';
import type { RecordedEvent } from '../src/ports/eventStore.js';
import type { ProjectionDefinition } from './definition.js';

export interface PositionedDocument<D> {
  doc: D | undefined;
  position: bigint;
}

/**
 * Applies events in order to the documents they touch, skipping any event a document already
 * reflects (its position is not newer), which is what makes a replay change nothing.
 * Mutates `docs`; returns the ids that changed.
 */
export function applyEvents<D, E extends DomainEvent>(
  p: ProjectionDefinition<D, E>,
  events: readonly { event: DomainEvent; recorded: RecordedEvent }[],
  docs: Map<string, PositionedDocument<D>>,
): Set<string> {
  const changed = new Set<string>();
  for (const { event, recorded } of events) {
    if (!isHandled(p, event)) continue;
    for (const id of p.documentIds(event)) {
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
export function handles(p: { handles: readonly string[] }, type: string): boolean {
  let types = handledTypes.get(p);
  if (types === undefined) handledTypes.set(p, (types = new Set(p.handles)));
  return types.has(type);
}

const isHandled = <E extends DomainEvent>(p: ProjectionDefinition<unknown, E>, event: DomainEvent): event is E => handles(p, event.type);
