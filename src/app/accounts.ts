import { WrongExpectedRevision, type EventStore } from '../ports/eventStore.js';
import { decideAccount, type AccountCommand } from '../domain/account/decider.js';
import { isAccountEvent, type AccountEvent } from '../domain/account/events.js';
import { evolveAccount, initialAccountState, type AccountState } from '../domain/account/state.js';
import { accountStream } from '../domain/account/ids.js';
import { fromRecorded, toNewEvent } from '../domain/events.js';
import { deterministicEventId } from '../domain/ids.js';
import { ServiceUnavailable } from '../domain/errors.js';
import type { EventMetadata } from '../ports/eventStore.js';
import { KeyedLock } from './keyedLock.js';

interface Cached {
  state: AccountState;
  /** revision of the last event folded into `state`; -1n when the stream does not exist */
  revision: bigint;
}

export interface AccountCommandResult {
  events: AccountEvent[];
  state: AccountState;
  /** position of the last appended event, when something was appended */
  position?: bigint;
}

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

/**
 * Loads, decides and appends account commands. Hot accounts stay cached with their revision; each
 * command first reads any newer events (another process may have written), and a conflicting append
 * re-reads and retries a bounded number of times.
 */
export class AccountRepository {
  private readonly cache = new Map<string, Cached>();
  private readonly lock = new KeyedLock();

  constructor(
    private readonly eventStore: EventStore,
    private readonly options: { maxRetries?: number; maxCached?: number } = {},
  ) {}

  /** the account's state as its stream says now */
  read(address: string): Promise<AccountState> {
    return this.lock.run(address, async () => (await this.refresh(address)).state);
  }

  execute(command: AccountCommand, metadata: Omit<EventMetadata, 'schemaVersion'>): Promise<AccountCommandResult> {
    const address = command.data.address;
    return this.lock.run(address, async () => {
      const attempts = (this.options.maxRetries ?? 10) + 1;
      for (let attempt = 0; attempt < attempts; attempt++) {
        const current = await this.refresh(address);
        const events = decideAccount(command, current.state);
        if (events.length === 0) return { events, state: current.state };
        try {
          const { position } = await this.eventStore.append(
            accountStream(address),
            events.map((e) => toNewEvent(e, eventIdOf(e), metadata)),
            current.revision < 0n ? 'no_stream' : current.revision,
          );
          const state = events.reduce(evolveAccount, current.state);
          this.remember(address, { state, revision: current.revision + BigInt(events.length) });
          return { events, state, position };
        } catch (error) {
          if (!(error instanceof WrongExpectedRevision)) throw error;
          // another process wrote first: the next refresh reads what it wrote
        }
      }
      throw new ServiceUnavailable(`account ${address} kept changing under ${attempts} attempts`);
    });
  }

  private async refresh(address: string): Promise<Cached> {
    let cached = this.cache.get(address) ?? { state: initialAccountState, revision: -1n };
    let { state, revision } = cached;
    for await (const recorded of this.eventStore.readStream(accountStream(address), { fromRevision: revision + 1n })) {
      const event = fromRecorded(recorded);
      if (event && isAccountEvent(event)) state = evolveAccount(state, event);
      revision = recorded.revision;
    }
    cached = { state, revision };
    this.remember(address, cached);
    return cached;
  }

  private remember(address: string, entry: Cached) {
    this.cache.delete(address);
    this.cache.set(address, entry);
    const max = this.options.maxCached ?? 10_000;
    if (this.cache.size > max) this.cache.delete(this.cache.keys().next().value!);
  }
}
