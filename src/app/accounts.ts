import type { EventMetadata, EventStore } from '../ports/eventStore.js';
import { decideAccount, type AccountCommand } from '../domain/account/decider.js';
import { isAccountEvent, type AccountEvent } from '../domain/account/events.js';
import { evolveAccount, initialAccountState, type AccountState } from '../domain/account/state.js';
import { accountStream } from '../domain/account/ids.js';
import { deterministicEventId } from '../domain/ids.js';
import { AggregateRepository, type CommandResult, type Decider } from './aggregateRepository.js';

export type AccountCommandResult = CommandResult<AccountState, AccountEvent>;

/**
 * Every event of an account command is determined by the command (a reservation id, a credit id),
 * so a retried append gets the same event id and is stored once.
 */
const eventIdOf = (e: AccountEvent): string =>
  deterministicEventId(
    e.type === 'AccountCredited'
      ? `credit:${e.data.address}:${e.data.creditId}`
      : e.type === 'PaymentApproved' || e.type === 'PaymentApprovalRevoked'
        ? `${e.type}:${e.data.address}:${e.data.approvedAddress}:${e.data.timestamp}`
        : `${e.type}:${e.data.address}:${e.data.reservationId}`,
  );

const accountDecider: Decider<AccountState, AccountCommand, AccountEvent> = {
  initialState: initialAccountState,
  evolve: evolveAccount,
  decide: decideAccount,
  isEvent: isAccountEvent,
  stream: accountStream,
  eventId: eventIdOf,
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
