import type { BlobStore } from '../../ports/blobStore.js';
import type { EventStore, Subscription } from '../../ports/eventStore.js';
import type { ReadStore } from '../../ports/readStore.js';
import type { DataItemRepository } from '../acceptance/dataItems.js';
import type { BridgeHealth } from './health.js';
import { fitInBody, postToGateway, type BridgeGateway, type PostOutcome, type Poster } from './post.js';
import { bestEffort } from '../../bestEffort.js';
import { createOutcomeRecorder, headerText, recordedSince, type Outcome, type Unit } from './outcomes.js';
import { itemsOf, pairKey, ReadPositions, type ItemToBridge } from './work.js';
import { ReadHolds } from './holds.js';
import type { AcceptedHeaders } from './acceptedHeaders.js';

/** the read store's checkpoint of the bridge: every event up to it has had its headers' outcomes recorded */
export const BRIDGE_CHECKPOINT = 'optical-bridge';

/** posts in flight to one gateway at once */
const POSTS_IN_FLIGHT = 4;
/**
 * the checkpoint is written at most this often: what a crash leaves after it is read again, and its
 * recorded outcomes skipped, so a later checkpoint costs a restart nothing but that read
 */
const CHECKPOINT_EVERY_MS = 1_000;
/**
 * the longest a post waits for the reading to pass the store's head before it reads its items' holds
 * from their streams instead: an append made in this process is read within a few ms of its commit;
 * one made by another process only at the store's next poll (200 ms for SQLite), not worth waiting for
 */
const HOLDS_WAIT_MS = 50;
/** the wait before posting again doubles per failure in a row, up to this many times the first */
const MAX_BACKOFF_FACTOR = 64;

export interface BridgeSettings {
  batchSize: number;
  intervalMs: number;
  timeoutMs: number;
  retryMs: number;
  maxAttempts: number;
  queueMax: number;
}

export interface BridgeDeps {
  eventStore: Pick<EventStore, 'subscribeToAll' | 'readAll' | 'headPosition' | 'readStream'>;
  readStore: Pick<ReadStore, 'getCheckpoint' | 'commit'>;
  blobStore: BlobStore;
  /** headers of the items this process accepted, so those are not read back from the blob store */
  accepted?: Pick<AcceptedHeaders, 'take'>;
  /** `read`: whether an item is held (quarantined) as its stream says now, right before its header is posted */
  items: Pick<DataItemRepository, 'execute' | 'read'>;
  gateways: readonly BridgeGateway[];
  settings: BridgeSettings;
  health: Pick<BridgeHealth, 'record'>;
  now: () => number;
  monotonic: () => number;
  log: (message: string, fields?: Record<string, unknown>) => void;
  post?: Poster;
}

interface Lane {
  gateway: BridgeGateway;
  queue: Unit[];
  inFlight: number;
  pausedUntil: number;
  failuresInRow: number;
}

export interface BridgeStats {
  /** items read and not yet done (every gateway's outcome recorded) */
  queued: number;
  /** headers a gateway took, per host */
  posted: Record<string, number>;
  /** posts made (each up to a batch), per host */
  posts: Record<string, number>;
  /** headers given up on, per host */
  failed: Record<string, number>;
  /** headers handed over by this process's acceptance (AcceptedHeaders), and read from the blob store */
  headers: { handed: number; read: number };
}

/**
 * The roots held (quarantined) of a batch's units, as their streams say now, right before the post: a
 * hold recorded with the acceptance (QUARANTINE_RULES) or before the bridge got to the item is seen,
 * whatever the read models say. An uploaded item's is known from the events read (`ReadHolds`) once the
 * reading has passed the store's head as it is now (waiting at most HOLDS_WAIT_MS for it); a
 * nested item's root, and any when the reading is not there, is read from its stream.
 */
async function heldRoots(deps: BridgeDeps, holds: ReadHolds, batch: Unit[]): Promise<Set<string>> {
  const ofNested = new Set(batch.filter((u) => u.item.id !== u.item.rootId).map((u) => u.item.rootId));
  const uploaded = [...new Set(batch.map((u) => u.item.rootId))].filter((rootId) => !ofNested.has(rootId));
  const known = uploaded.length > 0 && (await holds.until(await deps.eventStore.headPosition(), Math.min(HOLDS_WAIT_MS, deps.settings.intervalMs)));
  const toRead = known ? [...ofNested] : [...ofNested, ...uploaded];
  const states = await Promise.all(toRead.map((rootId) => deps.items.read(rootId)));
  const held = new Set(toRead.filter((_, i) => states[i]!.status === 'accepted' && states[i]!.quarantined !== undefined));
  if (known) for (const rootId of uploaded) if (holds.isHeld(rootId)) held.add(rootId);
  return held;
}

/**
 * The batch less the units whose items are held (a nested item: its root; `heldRoots`). A held unit is
 * done at this gateway without a post; the release (`DataItemReleased`, read in order) brings it back.
 * When the holds cannot be read now, the batch waits first in line, as after a failed post, and none is posted.
 */
async function withoutHeld(deps: BridgeDeps, holds: ReadHolds, lane: Lane, batch: Unit[], finish: (unit: Unit, host: string) => void): Promise<Unit[]> {
  let held: Set<string>;
  try {
    held = await heldRoots(deps, holds, batch);
  } catch (error) {
    deps.log('optical bridge: holds not read; the batch waits', { gateway: lane.gateway.host, error: String(error) });
    lane.queue.unshift(...batch);
    lane.pausedUntil = deps.monotonic() + deps.settings.retryMs;
    return [];
  }
  for (const unit of batch) if (held.has(unit.item.rootId)) finish(unit, lane.gateway.host);
  return batch.filter((unit) => !held.has(unit.item.rootId));
}

/**
 * A batch's headers, as many as fit one body (the rest go back first in line), less those held; those
 * that cannot be read are given up on (recorded so).
 */
async function bodyOf(
  deps: BridgeDeps,
  holds: ReadHolds,
  lane: Lane,
  all: Unit[],
  finish: (unit: Unit, host: string) => void,
  record: (outcome: Outcome) => Promise<void>,
  counts: BridgeStats['headers'],
): Promise<{ body: string; posted: Unit[] }> {
  const batch = await withoutHeld(deps, holds, lane, all, finish);
  const texts = await Promise.all(batch.map((unit) => headerText(deps.blobStore, unit, deps.accepted, counts)));
  const readable: { unit: Unit; text: string }[] = [];
  for (const [i, unit] of batch.entries()) {
    const text = texts[i]!;
    if (typeof text === 'string') readable.push({ unit, text });
    else await record({ units: [unit], host: lane.gateway.host, ok: false, error: `header not read: ${text.message}` });
  }
  const fit = fitInBody(readable.map((r) => r.text));
  lane.queue.unshift(...readable.slice(fit).map((r) => r.unit));
  const posted = readable.slice(0, fit);
  return { body: `[${posted.map((r) => r.text).join(',')}]`, posted: posted.map((r) => r.unit) };
}

/**
 * One holding of the bridge's lease: reads the events after the checkpoint, posts the headers of
 * the items they name to every gateway in batches, retries with back-off, records each outcome as
 * `DataItemBridged` on the item's stream (one append per stream, gateway and batch), and moves the
 * checkpoint past what is done. At most `queueMax` items are held: past it the reading waits, so
 * the rest waits in the event store; nothing here is on an upload's path.
 */
export function startBridgeRun(deps: BridgeDeps, stats: BridgeStats) {
  const { settings } = deps;
  const lanes = deps.gateways.map((gateway): Lane => ({ gateway, queue: [], inFlight: 0, pausedUntil: 0, failuresInRow: 0 }));
  const sends = new Set<Promise<void>>();
  let positions: ReadPositions | undefined;
  let holds = new ReadHolds(0n);
  let subscription: Subscription | undefined;
  let stopped = false;
  let saved: bigint | undefined;
  let savedAt = -Infinity;
  let room: (() => void) | undefined;

  function finish(unit: Unit, host: string) {
    if (!unit.waiting.delete(host) || unit.waiting.size > 0) return;
    stats.queued--;
    holds.done(unit.item.rootId);
    positions?.finish(unit.event);
    room?.();
  }
  const { record, retryUnrecorded } = createOutcomeRecorder(deps, finish);

  async function send(lane: Lane, batch: Unit[]) {
    const { body, posted } = await bodyOf(deps, holds, lane, batch, finish, record, stats.headers);
    if (posted.length === 0) return;
    const host = lane.gateway.host;
    const outcome: PostOutcome = await postToGateway(lane.gateway, body, settings.timeoutMs, deps.post);
    deps.health.record(host, outcome.ok);
    stats.posts[host] = (stats.posts[host] ?? 0) + 1;
    for (const unit of posted) unit.attempts.set(host, (unit.attempts.get(host) ?? 0) + 1);
    if (outcome.ok) {
      lane.failuresInRow = 0;
      stats.posted[host] = (stats.posted[host] ?? 0) + posted.length;
      await record({ units: posted, host, ok: true, status: outcome.status });
      return;
    }
    // stopping: what would be tried again is left to the next holder, which reads it again after the checkpoint
    if (outcome.retry && stopped) return;
    const again = outcome.retry ? posted.filter((u) => (u.attempts.get(host) ?? 0) < settings.maxAttempts) : [];
    const givenUp = posted.filter((u) => !again.includes(u));
    if (again.length > 0) {
      lane.failuresInRow++;
      lane.pausedUntil = deps.monotonic() + settings.retryMs * Math.min(2 ** (lane.failuresInRow - 1), MAX_BACKOFF_FACTOR);
      lane.queue.unshift(...again);
    }
    if (givenUp.length > 0) {
      stats.failed[host] = (stats.failed[host] ?? 0) + givenUp.length;
      await record({ units: givenUp, host, ok: false, ...(outcome.status !== undefined ? { status: outcome.status } : {}), error: outcome.error });
    }
  }

  /** posts what is due to one gateway: full batches at once, a partial one once its oldest waited the interval */
  function pump(lane: Lane) {
    while (!stopped && lane.inFlight < POSTS_IN_FLIGHT && lane.queue.length > 0 && deps.monotonic() >= lane.pausedUntil) {
      if (lane.queue.length < settings.batchSize && deps.monotonic() - lane.queue[0]!.queuedAt < settings.intervalMs) return;
      const batch = lane.queue.splice(0, settings.batchSize);
      lane.inFlight++;
      const sending: Promise<void> = send(lane, batch)
        .catch((error: unknown) => deps.log('optical bridge: a post failed unexpectedly', { gateway: lane.gateway.host, error: String(error) }))
        .finally(() => {
          lane.inFlight--;
          sends.delete(sending);
          pump(lane);
        });
      sends.add(sending);
    }
  }

  function enqueue(item: ItemToBridge, event: { left: number }, hosts: string[]) {
    const unit: Unit = { item, event, queuedAt: deps.monotonic(), waiting: new Set(hosts), attempts: new Map() };
    stats.queued++;
    holds.queued(item.rootId);
    for (const lane of lanes) {
      if (!unit.waiting.has(lane.gateway.host)) continue;
      lane.queue.push(unit);
      if (lane.queue.length >= settings.batchSize) pump(lane);
    }
  }

  async function follow(after: bigint) {
    const { pairs, until } = await recordedSince(deps.eventStore, after);
    positions = new ReadPositions(after);
    holds = new ReadHolds(after);
    subscription = deps.eventStore.subscribeToAll({ after });
    if (stopped) return;
    for await (const recorded of subscription) {
      if (recorded.position > until) pairs.clear();
      holds.note(recorded);
      const items = await itemsOf(deps.eventStore, recorded, pairs);
      const todo = items.map((item) => lanes.map((l) => l.gateway.host).filter((host) => !pairs.has(pairKey(item.id, host))));
      const event = positions.read(recorded.position, todo.filter((hosts) => hosts.length > 0).length);
      if (event) for (const [i, item] of items.entries()) if (todo[i]!.length > 0) enqueue(item, event, todo[i]!);
      holds.passed(recorded.position);
      if (stats.queued >= settings.queueMax) {
        // waiting for room, the reading passes nothing: a post waiting for it reads its holds instead
        holds.stall(true);
        while (!stopped && stats.queued >= settings.queueMax) await new Promise<void>((resolve) => (room = resolve));
        holds.stall(stopped);
      }
      room = undefined;
      if (stopped) break;
    }
    holds.stall(true);
  }

  /** every interval: partial batches and paused gateways, outcomes not recorded yet; the checkpoint at most once a second */
  async function tick(final = false) {
    for (const lane of lanes) pump(lane);
    await retryUnrecorded();
    const checkpoint = positions?.checkpoint();
    if (checkpoint !== undefined && checkpoint !== saved && (final || deps.monotonic() - savedAt >= CHECKPOINT_EVERY_MS)) {
      await deps.readStore.commit([], [{ name: BRIDGE_CHECKPOINT, position: checkpoint }]);
      saved = checkpoint;
      savedAt = deps.monotonic();
    }
  }

  const started = (async () => {
    let after = await deps.readStore.getCheckpoint(BRIDGE_CHECKPOINT);
    if (after === undefined) {
      // a bridge turned on bridges what is accepted from now on, not the whole history
      after = await deps.eventStore.headPosition();
      await deps.readStore.commit([], [{ name: BRIDGE_CHECKPOINT, position: after }]);
    }
    saved = after;
    await follow(after);
  })();
  const reading = started.catch((error: unknown) => {
    if (!stopped) throw error;
  });

  return {
    /** ends when the reading ends: with an error (the event store failed), or after `stop` */
    reading,
    tick,
    async stop() {
      stopped = true;
      room?.();
      await subscription?.close();
      await bestEffort(reading, 'a failed reading was logged by the supervisor, which started this stop');
      while (sends.size > 0) await Promise.allSettled([...sends]);
      await tick(true).catch((error: unknown) => deps.log('optical bridge: last checkpoint not saved', { error: String(error) }));
      // what was queued and not done is read again by the next holder, after the checkpoint
      stats.queued = 0;
    },
  };
}
