import type { ReadStore } from '../ports/readStore.js';
import { collectionOf, type AnyProjection } from '../../projections/definition.js';
import { createCheckpointWaiter } from '../../projections/checkpointWaiter.js';
import type { LiveEvent, LiveFeed } from './liveFeed.js';

/** One message of a status stream: the document after a change, and what the change was. */
export interface StatusChange<D> {
  /** the event-store position the document reflects: the message's id, to resume after */
  position: bigint;
  /** what happened (`accepted`, `posted`, ...); on the first message, the state the stream started in */
  event: string;
  doc: D;
  /** the first message: the state as the stream started (every change up to `position` in it) */
  current?: true;
  /** the event's own time (ms), on a change */
  at?: number;
  /** facts of the change: the bundle transaction, its block and confirmations, a reason */
  facts?: Record<string, unknown>;
  /** nothing follows: the stream ends after this message */
  terminal: boolean;
}

/** What a kind of status stream follows (an item's, an upload's): pure functions of its read model. */
export interface WatchSpec<D> {
  /** the read model the first message is read from, and whose `reduce` follows the changes */
  projection: AnyProjection;
  /** the event may change what subject `id` shows (cheap: asked of every event of the feed) */
  concerns(e: LiveEvent, id: string, doc: D | undefined): boolean;
  /** the change's name; undefined: the event shows nothing here (the document did not change) */
  changeOf(e: LiveEvent, before: D | undefined, after: D | undefined): { event: string; facts?: Record<string, unknown> } | undefined;
  /** the name of a state, for the first message */
  stateOf(doc: D): string;
  terminal(doc: D): boolean;
}

export interface StatusSink<D> {
  /** called in the feed's turn: queue or drop, never wait */
  send(change: StatusChange<D>): void;
  /** the feed stopped or failed: end the stream (the client resumes with its last id) */
  end(reason: 'stopped' | 'failed'): void;
}

export interface WatchDeps {
  feed: LiveFeed;
  readStore: ReadStore;
  /** how long the read model may take to reach the feed's position before the stream is refused */
  catchUpMs: number;
  /** events held while the first message is read (more: the stream is refused, as unavailable now) */
  maxPending: number;
}

export type WatchOpening<D> =
  | { state: 'unknown' }
  | { state: 'behind' }
  | {
      state: 'open';
      first?: StatusChange<D>;
      /** the state is final: nothing follows `first` (or nothing at all, when it was seen before `since`) */
      ended: boolean;
      close(): void;
    };

/**
 * Opens a stream of `id`'s status. The listener is registered first, then the read model is read once
 * it has passed the feed's position, so no change falls between the two: changes the read model
 * already reflects are in its document, later ones come from the feed. The first message is that
 * document (with any change the feed brought meanwhile); with `since` (a resumed stream), only when
 * it changed after `since`. `unknown`: no such subject; `behind`: the read model did not catch up in time.
 */
export async function openStatusWatch<D>(deps: WatchDeps, spec: WatchSpec<D>, id: string, sink: StatusSink<D>, since?: bigint): Promise<WatchOpening<D>> {
  const pending: LiveEvent[] = [];
  let overflowed = false;
  let live: ((e: LiveEvent) => void) | undefined;
  const { after, leave } = await deps.feed.listen({
    event(e) {
      if (live) live(e);
      else if (!spec.concerns(e, id, undefined)) return;
      else if (pending.length < deps.maxPending) pending.push(e);
      else overflowed = true;
    },
    ended: (reason) => sink.end(reason),
  });
  try {
    // an empty store (head 0): no checkpoint is written until there is an event to project
    const caughtUp = after === 0n || (await createCheckpointWaiter(deps.readStore, [spec.projection], 50).waitFor(after, deps.catchUpMs));
    if (!caughtUp) return close({ state: 'behind' });
    const stored = await deps.readStore.get<D>(collectionOf(spec.projection), id);
    if (overflowed) return close({ state: 'behind' });
    let doc = stored?.doc;
    let position = stored && stored.position > after ? stored.position : after;
    let changedAt = stored?.position ?? -1n;
    // what came meanwhile and the document does not reflect yet: folded into the first message
    for (const e of pending) {
      if ((stored && e.recorded.position <= stored.position) || !spec.concerns(e, id, doc)) continue;
      const next = reduced(spec, doc, e, id);
      if (spec.changeOf(e, doc, next)) changedAt = e.recorded.position;
      doc = next;
      if (e.recorded.position > position) position = e.recorded.position;
    }
    if (doc === undefined) return close({ state: 'unknown' });
    const ended = spec.terminal(doc);
    const first: StatusChange<D> | undefined =
      since === undefined || changedAt > since ? { position, event: spec.stateOf(doc), doc, current: true, terminal: ended } : undefined;
    if (ended) {
      leave();
      return { state: 'open', ...(first ? { first } : {}), ended: true, close: () => {} };
    }
    let current: D = doc;
    live = (e) => {
      if (e.recorded.position <= position || !spec.concerns(e, id, current)) return;
      const next = reduced(spec, current, e, id) ?? current;
      const change = spec.changeOf(e, current, next);
      current = next;
      if (!change || (since !== undefined && e.recorded.position <= since)) return;
      const terminal = spec.terminal(next);
      if (terminal) leave();
      sink.send({ position: e.recorded.position, ...change, doc: next, at: atOf(e), terminal });
    };
    return { state: 'open', ...(first ? { first } : {}), ended: false, close: leave };
  } catch (error) {
    leave();
    throw error;
  }

  function close<T>(answer: T): T {
    leave();
    return answer;
  }
}

/** the document after `e`, by the read model's own `reduce` (events it does not handle change nothing) */
function reduced<D>(spec: WatchSpec<D>, doc: D | undefined, e: LiveEvent, id: string): D | undefined {
  if (!spec.projection.handles.includes(e.event.type)) return doc;
  return spec.projection.reduce(doc, e.event, { id, recorded: e.recorded }) as D | undefined;
}

const atOf = (e: LiveEvent): number | undefined => {
  const data = e.event.data as { timestamp?: unknown };
  return typeof data.timestamp === 'number' ? data.timestamp : undefined;
};
