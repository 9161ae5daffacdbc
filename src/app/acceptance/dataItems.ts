import type { EventStore } from '../../ports/eventStore.js';
import { decide, evolve, initialState, type DataItemCommand, type DataItemState } from '../../domain/dataItem/decider.js';
import { isDataItemEvent, type DataItemEvent } from '../../domain/dataItem/events.js';
import { dataItemStream, type DataItemId } from '../../domain/ids.js';
import { AggregateRepository } from '../aggregateRepository.js';
import { nestedPartId } from '../nested/eventIds.js';

/**
 * Data items by id; see AggregateRepository for locking and retries. One per process, built in the
 * composition root (src/wiring/shared.ts) and handed to every part that reads or commands items:
 * its per-item lock then runs this process's commands on one item one at a time, and its cache
 * (always brought up to the stream's end before a read answers or a command decides) serves them
 * all. The acceptance creates the stream without reading it again (`create`: the upload read it and
 * found none).
 */
export class DataItemRepository extends AggregateRepository<DataItemState, DataItemCommand, DataItemEvent> {
  constructor(eventStore: EventStore, options: { maxRetries?: number } = {}) {
    super(
      eventStore,
      {
        initialState,
        evolve,
        decide: (command, state) => decide(command, state).events,
        isEvent: isDataItemEvent,
        keyOf: (command) => command.data.id,
        stream: (id) => dataItemStream(id as DataItemId),
        // a part of a nested index is named by the findings it holds, so the store keeps a retried
        // append once and never takes two different parts for one; the others are random
        eventId: (event, state) =>
          event.type === 'NestedItemsIndexed' && state.status === 'accepted'
            ? nestedPartId(event.data.id, state.nested?.findings ?? 0, event.data.items.length + (event.data.unindexed?.length ?? 0), event.data.more === true)
            : undefined,
      },
      // items are many and rarely commanded twice: a small cache
      { maxCached: 1000, ...options },
    );
  }
}
