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
  /**
   * the id of an event decided on `state`, when a retried or racing append of the same decision
   * must be stored once (the store deduplicates an event id appended again at the same revision);
   * undefined for a random one
   */
  eventId?(event: E, state: S): string | undefined;
}

interface Cached<S> {
  state: S;
  /** revision of the last event folded into `state`; -1n when the stream does not exist */
  revision: bigint;
  /** the store's position of that event; undefined when the stream does not exist */
  position?: bigint;
}

export interface CommandResult<S, E> {
  events: E[];
  state: S;
  /** position of the last appended event, when something was appended */
  position?: bigint;
}

/**
 * Loads, decides and appends. Hot aggregates stay cached with their revision; each command and
 * each read first reads the events after it (another process may have written), so no answer or
 * decision is made on a cached state alone (but for `onCache`, whose append the store checks
 * against the cached revision). Commands on one key run one at a time in this process
 * (one repository per process, built in the composition root), and a conflicting append (another
 * process) re-reads and retries a bounded number of times. An append that fails caches nothing.
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

  /** the state as the stream says now, and the position of its last event (undefined: no stream) */
  readWithPosition(key: string): Promise<{ state: S; position?: bigint }> {
    return this.lock.run(key, async () => {
      const { state, position } = await this.refresh(key);
      return position === undefined ? { state } : { state, position };
    });
  }

  /**
   * decides `command` on the current state and appends what it decided (nothing when it decides
   * nothing). `beforeAppend`: a last precondition, run right before each append attempt; a throw
   * appends nothing (the bundler's lease fence). `onCache`, for a fact recorded on a hot path (the
   * optical bridge's outcomes): the first attempt decides on the cached state without reading the
   * stream, and its append expects the cached revision, so the store refuses it if anything was
   * appended since (another process) and the next attempt reads; a decision of nothing on the cache
   * is not trusted (it may be behind), and is made again after a read.
   */
  execute(
    command: C,
    metadata: Omit<EventMetadata, 'schemaVersion'>,
    beforeAppend?: () => Promise<void>,
    { onCache = false }: { onCache?: boolean } = {},
  ): Promise<CommandResult<S, E>> {
    const key = this.decider.keyOf(command);
    return this.lock.run(key, async () => {
      const attempts = (this.options.maxRetries ?? 10) + 1 + (onCache ? 1 : 0);
      for (let attempt = 0; attempt < attempts; attempt++) {
        const cached = onCache && attempt === 0 ? this.cache.get(key) : undefined;
        const current = cached ?? (await this.refresh(key));
        const events = this.decider.decide(command, current.state);
        if (events.length === 0 && cached) continue;
        if (events.length === 0) return { events, state: current.state };
        await beforeAppend?.();
        try {
          return await this.append(key, current, events, metadata);
        } catch (error) {
          if (!WrongExpectedRevision.is(error)) throw error;
          // another process wrote first: the next refresh reads what it wrote
        }
      }
      throw new ServiceUnavailable(`${this.decider.stream(key)} kept changing under ${attempts} attempts`);
    });
  }

  /**
   * decides `command` on the initial state and appends what it decided creating the stream
   * ("no stream"), without reading the stream first: for a caller that has just read it and found
   * none, on a hot path where a second read per command would cost (the acceptance of an upload).
   * A stream created meanwhile fails the append with WrongExpectedRevision, not retried: what a
   * lost race means is the caller's to say. `beforeAppend` as in `execute`.
   */
  create(command: C, metadata: Omit<EventMetadata, 'schemaVersion'>, beforeAppend?: () => Promise<void>): Promise<CommandResult<S, E>> {
    const key = this.decider.keyOf(command);
    return this.lock.run(key, async () => {
      const fresh: Cached<S> = { state: this.decider.initialState, revision: -1n };
      const events = this.decider.decide(command, fresh.state);
      if (events.length === 0) return { events, state: fresh.state };
      await beforeAppend?.();
      return this.append(key, fresh, events, metadata);
    });
  }

  /** appends `events` decided on `current`, expecting its revision, and caches what they fold to */
  private async append(key: string, current: Cached<S>, events: E[], metadata: Omit<EventMetadata, 'schemaVersion'>): Promise<CommandResult<S, E>> {
    const { position } = await this.eventStore.append(
      this.decider.stream(key),
      // random event ids unless the decider derives them: a decider makes a repeated command decide
      // nothing, and a derived id appended again at a later revision is refused by the stores as a
      // conflict, not deduplicated
      events.map((e) => toNewEvent(e, this.decider.eventId?.(e, current.state) ?? newEventId(), metadata)),
      current.revision < 0n ? 'no_stream' : current.revision,
    );
    const state = events.reduce(this.decider.evolve, current.state);
    this.remember(key, { state, revision: current.revision + BigInt(events.length), position });
    return { events, state, position };
  }

  private async refresh(key: string): Promise<Cached<S>> {
    let { state, revision, position }: Cached<S> = this.cache.get(key) ?? { state: this.decider.initialState, revision: -1n };
    for await (const recorded of this.eventStore.readStream(this.decider.stream(key), { fromRevision: revision + 1n })) {
      const event = fromRecorded(recorded);
      if (event && this.decider.isEvent(event)) state = this.decider.evolve(state, event);
      revision = recorded.revision;
      position = recorded.position;
    }
    const cached: Cached<S> = position === undefined ? { state, revision } : { state, revision, position };
    this.remember(key, cached);
    return cached;
  }

  private remember(key: string, entry: Cached<S>) {
    this.cache.delete(key);
    this.cache.set(key, entry);
    if (this.cache.size > (this.options.maxCached ?? 10_000)) this.cache.delete(this.cache.keys().next().value!);
  }
}
