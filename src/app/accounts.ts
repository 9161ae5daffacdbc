import type { EventMetadata, EventStore } from '../ports/eventStore.js';
import { decideAccount, type AccountCommand } from '../domain/account/decider.js';
import { isAccountEvent, type AccountEvent } from '../domain/account/events.js';
import { evolveAccount, initialAccountState, type AccountState } from '../domain/account/state.js';
import { accountStream } from '../domain/account/ids.js';
import { newEventId } from '../domain/ids.js';
import { AggregateRepository, type CommandResult, type Decider } from './aggregateRepository.js';

export type AccountCommandResult = CommandResult<AccountState, AccountEvent>;

const accountDecider: Decider<AccountState, AccountCommand, AccountEvent> = {
  initialState: initialAccountState,
  evolve: evolveAccount,
  decide: decideAccount,
  isEvent: isAccountEvent,
  stream: accountStream,
  // random ids: the decider already makes every repeated command decide nothing, and a derived id
  // appended again at a later revision would be refused by the store as a conflict, not deduplicated
  eventId: newEventId,
};

/** Accounts by native address; see AggregateRepository for caching, locking and retries. */
export class AccountRepository {
  private readonly repository: AggregateRepository<AccountState, AccountCommand, AccountEvent>;

  constructor(eventStore: EventStore, options: { maxRetries?: number; maxCached?: number } = {}) {
    this.repository = new AggregateRepository(eventStore, accountDecider, options);
  }

  read(address: string): Promise<AccountState> {
    return this.repository.read(address);
  }

  execute(command: AccountCommand, metadata: Omit<EventMetadata, 'schemaVersion'>): Promise<AccountCommandResult> {
    return this.repository.execute(command.data.address, command, metadata);
  }
}
