import { accountStream } from '../domain/account/ids.js';
import type { EventStore, RecordedEvent } from '../ports/eventStore.js';

/**
 * An account's stream as auditors read it: every event in revision order, as stored (unknown types
 * included). Revisions and positions are decimal strings: EventStoreDB commit positions exceed 2^53.
 */
const entryOf = (e: RecordedEvent) => ({
  id: e.id,
  revision: e.revision.toString(),
  position: e.position.toString(),
  type: e.type,
  data: e.data,
  metadata: e.metadata,
  created: new Date(e.created).toISOString(),
});

export async function accountHistoryBody(eventStore: Pick<EventStore, 'readStream'>, address: string) {
  const events: ReturnType<typeof entryOf>[] = [];
  for await (const e of eventStore.readStream(accountStream(address))) events.push(entryOf(e));
  return { address, events };
}
