import type { EventStore } from '../ports/eventStore.js';
import { decideBundle, type BundleCommand } from '../domain/bundle/decider.js';
import { isBundleEvent, type BundleEvent } from '../domain/bundle/events.js';
import { evolveBundle, type BundleState } from '../domain/bundle/state.js';
import { bundleStream } from '../domain/bundle/ids.js';
import { AggregateRepository } from './aggregateRepository.js';

/** Bundle plans by id; see AggregateRepository for caching, locking and retries. */
export class BundleRepository extends AggregateRepository<BundleState, BundleCommand, BundleEvent> {
  constructor(eventStore: EventStore) {
    super(eventStore, {
      initialState: undefined,
      evolve: evolveBundle,
      decide: decideBundle,
      isEvent: isBundleEvent,
      keyOf: (command) => command.data.planId,
      stream: bundleStream,
    });
  }
}
