import type { EventStore } from '../../ports/eventStore.js';
import { decideAccount, type AccountCommand } from '../../domain/account/decider.js';
import { isAccountEvent, type AccountEvent } from '../../domain/account/events.js';
import { evolveAccount, initialAccountState, type AccountState } from '../../domain/account/state.js';
import { accountStream } from '../../domain/account/ids.js';
import { AggregateRepository } from '../aggregateRepository.js';

/** Accounts by native address; see AggregateRepository for caching, locking and retries. */
export class AccountRepository extends AggregateRepository<AccountState, AccountCommand, AccountEvent> {
  constructor(eventStore: EventStore, options: { maxRetries?: number; maxCached?: number } = {}) {
    super(
      eventStore,
      {
        initialState: initialAccountState,
        evolve: evolveAccount,
        decide: decideAccount,
        isEvent: isAccountEvent,
        keyOf: (command) => command.data.address,
        stream: accountStream,
      },
      options,
    );
  }
}
