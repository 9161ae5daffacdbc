import type { EventStore, RecordedEvent, Subscription } from '../src/ports/eventStore.js';
import type { DocumentWrite, ReadStore } from '../src/ports/readStore.js';
import { fromRecorded, type DomainEvent } from '../src/domain/events.js';
import { applyEvents, type PositionedDocument } from './apply.js';
import { batched } from './batched.js';
import { checkpointOf, collectionOf, type AnyProjection } from './definition.js';

export interface ProjectionRunner {
  start(): Promise<void>;
  /** resolves true once every projection has passed `position`, false after `timeoutMs` */
  waitFor(position: bigint, timeoutMs: number): Promise<boolean>;
  /** the lowest checkpoint over the projections (undefined: nothing projected yet) */
  position(): bigint | undefined;
  stop(): Promise<void>;
}

interface Options {
  eventStore: EventStore;
  readStore: ReadStore;
  projections: readonly AnyProjection[];
  batchSize?: number;
  retryDelayMs?: number;
  /**
   * Takes or renews the projector's lease (one active runner across processes); false: another
   * runner is active, so this one waits and tries again. Absent: always active.
   */
  holdLease?: () => Promise<boolean>;
  /** how often the lease is renewed while running, and asked for while waiting (default 2 s) */
  leaseRenewMs?: number;
  log?: (message: string, error?: unknown) => void;
}

/**
 * Reads `$all` from the lowest checkpoint, applies each batch to every projection and writes the
 * documents with the checkpoints in one commit. Documents remember the position they reflect, so
 * an event seen twice (a replay after a crash) changes nothing.
 */
export function createProjectionRunner(options: Options): ProjectionRunner {
  const { eventStore, readStore, projections, batchSize = 1000, retryDelayMs = 1000, holdLease, leaseRenewMs = 2000, log = () => {} } = options;
  const checkpoints = new Map<string, bigint | undefined>();
  const waiters = new Set<{ position: bigint; resolve: (ok: boolean) => void }>();
  let subscription: Subscription | undefined;
  let running = false;
  let loop: Promise<void> | undefined;

  const lowest = (): bigint | undefined => {
    let low: bigint | undefined;
    for (const p of projections) {
      const c = checkpoints.get(checkpointOf(p));
      if (c === undefined) return undefined;
      if (low === undefined || c < low) low = c;
    }
    return low;
  };

  const notify = () => {
    const low = lowest();
    if (low === undefined) return;
    for (const w of waiters) if (low >= w.position) w.resolve(true);
  };

  async function apply(batch: RecordedEvent[]) {
    const last = batch[batch.length - 1]!.position;
    const parsed = batch.map((recorded) => ({ recorded, event: fromRecorded(recorded) }));
    const writes: DocumentWrite[] = [];
    for (const p of projections) {
      const after = checkpoints.get(checkpointOf(p));
      const relevant = parsed.filter(
        (e): e is { recorded: RecordedEvent; event: DomainEvent } =>
          e.event !== undefined && (after === undefined || e.recorded.position > after) && p.handles.includes(e.event.type),
      );
      if (relevant.length === 0) continue;
      const collection = collectionOf(p);
      const ids = relevant.flatMap((e) => p.documentIds(e.event));
      const docs: Map<string, PositionedDocument<unknown>> = await readStore.getMany(collection, ids);
      for (const id of applyEvents(p, relevant, docs)) {
        const d = docs.get(id)!;
        writes.push({ collection, id, doc: d.doc, position: d.position });
      }
    }
    await readStore.commit(
      writes,
      projections.map((p) => ({ name: checkpointOf(p), position: last })),
    );
    for (const p of projections) checkpoints.set(checkpointOf(p), last);
    notify();
  }

  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms).unref());

  async function loadCheckpoints() {
    for (const p of projections) checkpoints.set(checkpointOf(p), await readStore.getCheckpoint(checkpointOf(p)));
    notify();
  }

  async function run() {
    while (running) {
      let heartbeat: NodeJS.Timeout | undefined;
      try {
        if (holdLease) {
          if (!(await holdLease())) {
            // another runner is active: follow its checkpoints, so waitFor still answers here
            await loadCheckpoints();
            await sleep(leaseRenewMs);
            continue;
          }
          // it may have moved on while this one waited
          await loadCheckpoints();
          heartbeat = setInterval(() => {
            holdLease()
              .then((held) => (held ? undefined : subscription?.close()))
              .catch(() => subscription?.close());
          }, leaseRenewMs);
        }
        const low = lowest();
        subscription = eventStore.subscribeToAll(low === undefined ? {} : { after: low });
        for await (const batch of batched(subscription, batchSize)) {
          await apply(batch);
          if (!running) break;
        }
      } catch (error) {
        if (!running) break;
        log('projection runner failed; retrying', error);
        await sleep(retryDelayMs);
      } finally {
        clearInterval(heartbeat);
        await subscription?.close().catch(() => {});
      }
    }
  }

  return {
    async start() {
      await loadCheckpoints();
      running = true;
      loop = run();
    },
    waitFor(position, timeoutMs) {
      const low = lowest();
      if (low !== undefined && low >= position) return Promise.resolve(true);
      return new Promise((resolve) => {
        const waiter = {
          position,
          resolve: (ok: boolean) => {
            clearTimeout(timer);
            waiters.delete(waiter);
            resolve(ok);
          },
        };
        const timer = setTimeout(() => waiter.resolve(false), timeoutMs);
        waiters.add(waiter);
      });
    },
    position: lowest,
    async stop() {
      running = false;
      await subscription?.close().catch(() => {});
      await loop;
      for (const w of waiters) w.resolve(false);
    },
  };
}
