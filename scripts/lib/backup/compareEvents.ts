import type { EventStore } from '../../../src/ports/eventStore.js';
import { dataItemStream, type DataItemId } from '../../../src/domain/ids.js';

export interface MissingReceipt {
  id: string;
  /** its acceptance's position in the other (old) event store */
  position: bigint;
}

/**
 * The items `other` accepted (and so receipted: a receipt is signed only once the acceptance is
 * appended) that `here` has no acceptance of: after a restore, with `other` the old service's event
 * store, what was receipted after the backup was taken. The old store is read once in order; each
 * of its items is looked up in `here` by its stream, so memory does not grow with the stores.
 */
export async function* receiptsMissingFrom(here: Pick<EventStore, 'readStream'>, other: Pick<EventStore, 'readAll'>): AsyncGenerator<MissingReceipt> {
  for await (const event of other.readAll()) {
    if (event.type !== 'DataItemAccepted') continue;
    const { id } = event.data as { id: string };
    if (!(await accepted(here, id))) yield { id, position: event.position };
  }
}

async function accepted(store: Pick<EventStore, 'readStream'>, id: string): Promise<boolean> {
  for await (const event of store.readStream(dataItemStream(id as DataItemId))) if (event.type === 'DataItemAccepted') return true;
  return false;
}
