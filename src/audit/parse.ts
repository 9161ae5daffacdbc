import { fromRecorded, type DomainEvent } from '../domain/events.js';
import type { RecordedEvent } from '../ports/eventStore.js';

export type Parsed = { event: DomainEvent } | { event?: undefined; invalid?: string };

/**
 * The domain event of a recorded one, for tools that must read on past a bad event: undefined for a
 * type the service does not know, and the schema's complaint (not a throw) for data that fails it.
 */
export function parseRecorded(recorded: RecordedEvent): Parsed {
  try {
    const event = fromRecorded(recorded);
    return event ? { event } : {};
  } catch (error) {
    return { invalid: error instanceof Error ? error.message.replace(/\s+/g, ' ').slice(0, 300) : String(error) };
  }
}
