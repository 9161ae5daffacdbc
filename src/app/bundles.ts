import type { EventMetadata, EventStore } from '../ports/eventStore.js';
import { decideBundle, type BundleCommand } from '../domain/bundle/decider.js';
import { isBundleEvent, type BundleEvent } from '../domain/bundle/events.js';
import { evolveBundle, type BundleState } from '../domain/bundle/state.js';
import { bundleStream } from '../domain/bundle/ids.js';
import { newEventId } from '../domain/ids.js';
import { AggregateRepository, type CommandResult } from './aggregateRepository.js';

/** Bundle plans by id; see AggregateRepository for caching, locking and retries. */
export class BundleRepository {
  private readonly repository: AggregateRepository<BundleState, BundleCommand, BundleEvent>;

  constructor(eventStore: EventStore) {
    this.repository = new AggregateRepository(eventStore, {
      initialState: undefined,
      evolve: evolveBundle,
      decide: decideBundle,
      isEvent: isBundleEvent,
      stream: bundleStream,
      // the decider makes a step taken twice decide nothing
      eventId: newEventId,
    });
  }

  read(planId: string): Promise<BundleState> {
    return this.repository.read(planId);
  }

  execute(command: BundleCommand, metadata: Omit<EventMetadata, 'schemaVersion'>): Promise<CommandResult<BundleState, BundleEvent>> {
    return this.repository.execute(command.data.planId, command, metadata);
  }
}
