import type { EventStore, RecordedEvent, Subscription } from '../ports/eventStore.js';
import { fromRecorded, type DomainEvent } from '../domain/events.js';
import { bestEffort } from '../bestEffort.js';
import { ITEM_EVENT_TYPES, itemIdsOf, type ItemEvent } from '../../projections/itemIds.js';
import { uploadsProjection } from '../../projections/uploads.js';

/** One event as the feed hands it to every listener: parsed once, its items found once. */
export interface LiveEvent {
  event: DomainEvent;
  recorded: RecordedEvent;
  /** the items it concerns (a bundle's events: all its items), empty for an event of no item */
  itemIds: ReadonlySet<string>;
}

/**
 * A listener is called in the feed's turn, for every event after the position it was registered at:
 * it must not wait (it queues, or drops itself). `ended` comes once when the feed stops or fails.
 */
export interface LiveListener {
  event(e: LiveEvent): void;
  ended(reason: 'stopped' | 'failed'): void;
}

export interface LiveFeed {
  /**
   * Registers `listener`, starting the shared subscription when it is the first; resolves to the
   * position the listener's events start after, and the way to leave.
   */
  listen(listener: LiveListener): Promise<{ after: bigint; leave(): void }>;
  /** listeners now (for tests and metrics) */
  listeners(): number;
  /** ends every listener and closes the subscription */
  stop(): Promise<void>;
}

// Bundle steps name their plan, not its items: a listener that follows the plan matches them.
const PLAN_STEPS = ['BundleAwaitingFunds', 'BundlePosted', 'BundleSeeded', 'BundleConfirmed'] as const;
const itemTypes: ReadonlySet<string> = new Set(ITEM_EVENT_TYPES);
/** only these are parsed: account, blocklist and lease events are most of `$all` and concern no status */
const liveTypes: ReadonlySet<string> = new Set<string>([...ITEM_EVENT_TYPES, ...PLAN_STEPS, ...uploadsProjection.handles]);
const NO_ITEMS: ReadonlySet<string> = new Set();

/**
 * The status streams' one subscription to `$all` in this process (whatever its role: the queries role
 * has no projector, and reads through this), fanned out to every listener. It runs while someone
 * listens: started from the head by the first listener, closed when the last leaves. A listener is
 * called synchronously and never awaited, so a slow reader holds neither the feed nor the others
 * (each keeps its own bounded queue: src/http/liveStatus.ts), nor the projector, which reads with
 * its own subscription.
 */
export function createLiveFeed(deps: {
  eventStore: Pick<EventStore, 'headPosition' | 'subscribeToAll'>;
  log: (message: string, error: unknown) => void;
}): LiveFeed {
  const listeners = new Set<LiveListener>();
  let running: { subscription: Subscription; position: bigint; loop: Promise<void> } | undefined;
  let starting: Promise<void> | undefined;

  const endAll = (reason: 'stopped' | 'failed') => {
    const ended = [...listeners];
    listeners.clear();
    for (const l of ended) l.ended(reason);
  };

  async function follow(subscription: Subscription, state: { position: bigint }) {
    try {
      for await (const recorded of subscription) {
        state.position = recorded.position;
        if (!liveTypes.has(recorded.type)) continue;
        const event = fromRecorded(recorded);
        if (!event) continue;
        const itemIds = itemTypes.has(event.type) ? new Set(itemIdsOf(event as ItemEvent)) : NO_ITEMS;
        const live = { event, recorded, itemIds };
        for (const l of listeners) l.event(live);
      }
    } catch (error) {
      deps.log('live status feed failed; its streams are ended', error);
    }
    // not closed by the feed itself: the store failed under it (or ended it), so the streams end and
    // their clients resume from their last id
    if (running?.subscription === subscription) {
      running = undefined;
      endAll('failed');
    }
  }

  async function start() {
    const head = await deps.eventStore.headPosition();
    const subscription = deps.eventStore.subscribeToAll({ after: head });
    const state = { subscription, position: head, loop: Promise.resolve() };
    state.loop = follow(subscription, state);
    running = state;
  }

  async function closeIfIdle() {
    const current = running;
    if (!current || listeners.size > 0) return;
    running = undefined;
    await bestEffort(current.subscription.close(), 'nobody listens: nothing reads from it again');
  }

  return {
    async listen(listener) {
      listeners.add(listener);
      try {
        while (!running) await (starting ??= start().finally(() => (starting = undefined)));
      } catch (error) {
        listeners.delete(listener);
        throw error;
      }
      return {
        after: running.position,
        leave: () => {
          if (listeners.delete(listener)) void closeIfIdle();
        },
      };
    },
    listeners: () => listeners.size,
    async stop() {
      endAll('stopped');
      await closeIfIdle();
      if (starting) await bestEffort(starting, 'a start that failed opened nothing to close');
      await closeIfIdle();
    },
  };
}
