import { WrongExpectedRevision, type EventMetadata, type EventStore, type StreamName } from '../ports/eventStore.js';
import { ServiceUnavailable } from '../domain/errors.js';
import { fromRecorded, toNewEvent, type DomainEvent } from '../domain/events.js';
import { newEventId } from '../domain/ids.js';
import { KeyedLock } from './keyedLock.js';

/** An aggregate as plain functions (the decider pattern). */
export interface Decider<S, C, E extends DomainEvent> {
  initialState: S;
  evolve(state: S, event: E): S;
  decide(command: C, state: S): E[];
  isEvent(event: DomainEvent): event is E;
  /** the aggregate a command is for (its stream key) */
  keyOf(command: C): string;
  stream(key: string): StreamName;
}

interface Cached<S> {
  state: S;
  /** revision of the last event folded into `state`; -1n when the stream does not exist */
  revision: bigint;
}

export interface CommandResult<S, E> {
  events: E[];
  state: S;
  /** position of the last appended event, when something was appended */
  position?: bigint;
}

/**
 * Loads, decides and appends. Hot aggregates stay cached with their revision; each command first
 * reads newer events (another process may have written), commands on one key run one at a time in
 * this process, and a conflicting append (another process) re-reads and retries a bounded number
 * of times.
 */
export class AggregateRepository<S, C, E extends DomainEvent> {
  private readonly cache = new Map<string, Cached<S>>();
  private readonly lock = new KeyedLock();

  constructor(
    private readonly eventStore: EventStore,
    private readonly decider: Decider<S, C, E>,
    private readonly options: { maxRetries?: number; maxCached?: number } = {},
  ) {}

  /** the state as the stream says now */
  read(key: string): Promise<S> {
    return this.lock.run(key, async () => (await this.refresh(key)).state);
  }

  /**
   * decides `command` on the current state and appends what it decided (nothing when it decides
   * nothing). `beforeAppend`: a last precondition, run right before each append attempt; a throw
   * appends nothing (the bundler's lease fence).
   */
  execute(command: C, metadata: Omit<EventMetadata, 'schemaVersion'>, beforeAppend?: () => Promise<void>): Promise<CommandResult<S, E>> {
    const key = this.decider.keyOf(command);
    return this.lock.run(key, async () => {
      const attempts = (this.options.maxRetries ?? 10) + 1;
      for (let attempt = 0; attempt < attempts; attempt++) {
        const current = await this.refresh(key);
        const events = this.decider.decide(command, current.state);
        if (events.length === 0) return { events, state: current.state };
        await beforeAppend?.();
        try {
          const { position } = await this.eventStore.append(
            this.decider.stream(key),
            // random event ids: a decider makes a repeated command decide nothing, and a derived id
            // appended again at a later revision is refused by the stores as a conflict, not deduplicated
            events.map((e) => toNewEvent(e, newEventId(), metadata)),
            current.revision < 0n ? 'no_stream' : current.revision,
          );
          const state = events.reduce(this.decider.evolve, current.state);
          this.remember(key, { state, revision: current.revision + BigInt(events.length) });
          return { events, state, position };
        } catch (error) {
          if (!WrongExpectedRevision.is(error)) throw error;
          // another process wrote first: the next refresh reads what it wrote
        }
      }
      throw new ServiceUnavailable(`${this.decider.stream(key)} kept changing under ${attempts} attempts`);
    });
  }

  private async refresh(key: string): Promise<Cached<S>> {
    let { state, revision } = this.cache.get(key) ?? { state: this.decider.initialState, revision: -1n };
    for await (const recorded of this.eventStore.readStream(this.decider.stream(key), { fromRevision: revision + 1n })) {
      const event = fromRecorded(recorded);
      if (event && this.decider.isEvent(event)) state = this.decider.evolve(state, event);
      revision = recorded.revision;
    }
    const cached = { state, revision };
    this.remember(key, cached);
    return cached;
  }

  private remember(key: string, entry: Cached<S>) {
    this.cache.delete(key);
    this.cache.set(key, entry);
    if (this.cache.size > (this.options.maxCached ?? 10_000)) this.cache.delete(this.cache.keys().next().value!);
  }
}
