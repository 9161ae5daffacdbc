import type { EventStore } from '../ports/eventStore.js';
import { decide, evolve, initialState, type DataItemCommand, type DataItemState } from '../domain/dataItem/decider.js';
import { isDataItemEvent, type DataItemEvent } from '../domain/dataItem/events.js';
import { dataItemStream, type DataItemId } from '../domain/ids.js';
import { AggregateRepository } from './aggregateRepository.js';

/**
 * Data items by id, for the commands on an item already accepted (its damage found, its repair);
 * see AggregateRepository for locking and retries. The acceptance itself creates the stream with
 * "no stream" in acceptDataItem.
 */
export class DataItemRepository extends AggregateRepository<DataItemState, DataItemCommand, DataItemEvent> {
  constructor(eventStore: EventStore) {
    super(
      eventStore,
      {
        initialState,
        evolve,
        decide: (command, state) => decide(command, state).events,
        isEvent: isDataItemEvent,
        keyOf: (command) => command.data.id,
        stream: (id) => dataItemStream(id as DataItemId),
      },
      // items are many and rarely commanded twice: a small cache
      { maxCached: 1000 },
    );
  }
}
