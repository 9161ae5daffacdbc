import { setImmediate as nextTurn } from 'node:timers/promises';
import type { EventStore, RecordedEvent, Subscription } from '../src/ports/eventStore.js';
import { CheckpointConflict, type ReadStore } from '../src/ports/readStore.js';
import { batched, type BatchWait } from './batched.js';
import { checkpointOf, collectionOf, type AnyProjection } from './definition.js';
import { advanced, projectBatch } from './projectBatch.js';
import { slices, SLICE_WEIGHT } from './slices.js';
import { bestEffort } from '../src/bestEffort.js';

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
  /** under load (`moreComing`), how long a batch may wait for the next commit's events (batched.ts; default none) */
  batchWait?: BatchWait;
  /** documents one commit may touch, about (see slices.ts) */
  sliceWeight?: number;
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
 * documents with the checkpoints in one commit per slice of the batch. Documents remember the position they reflect, so
 * an event seen twice (a replay after a crash) changes nothing. Each commit expects the checkpoints
 * this runner last saw, so a read model promoted meanwhile by a rebuild is never overwritten.
 */
export function createProjectionRunner(options: Options): ProjectionRunner {
  const { eventStore, readStore, projections, batchSize = 1000, batchWait, retryDelayMs = 1000, holdLease, leaseRenewMs = 2000, log = () => {} } = options;
  const sliceWeight = options.sliceWeight ?? SLICE_WEIGHT;
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

  /**
   * A batch is committed a slice at a time, each slice's documents with its checkpoints, and the
   * event loop is given back between slices: a batch of large events (nested indexes) would
   * otherwise be one long synchronous stretch that no query gets through.
   */
  async function apply(batch: RecordedEvent[]) {
    let first = true;
    for (const slice of slices(batch, sliceWeight)) {
      if (!first) await nextTurn();
      first = false;
      const targets = projections.map((p) => ({
        projection: p,
        collection: collectionOf(p),
        checkpoint: checkpointOf(p),
        after: checkpoints.get(checkpointOf(p)),
      }));
      const last = await projectBatch(readStore, targets, slice);
      for (const t of targets) checkpoints.set(t.checkpoint, advanced(t.after, last));
      notify();
    }
  }

  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms).unref());

  async function loadCheckpoints() {
    for (const p of projections) checkpoints.set(checkpointOf(p), await readStore.getCheckpoint(checkpointOf(p)));
    notify();
  }

  async function run() {
    let reload = false;
    while (running) {
      let heartbeat: NodeJS.Timeout | undefined;
      try {
        if (reload) {
          await loadCheckpoints();
          reload = false;
        }
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
        const current = (subscription = eventStore.subscribeToAll(low === undefined ? {} : { after: low }));
        // stopped while the checkpoints were read: stop() closed the previous subscription, not this one
        if (!running) break;
        for await (const batch of batched(current, batchSize, batchWait)) {
          try {
            await apply(batch);
          } catch (error) {
            // closed before leaving the loop: leaving waits for the read the batching has pending,
            // which only a close (or the next event appended) ends
            await bestEffort(current.close(), 'the batch failure is the one reported');
            throw error;
          }
          if (!running) break;
        }
      } catch (error) {
        if (!running) break;
        if (CheckpointConflict.is(error)) {
          // another writer (a rebuild's promote) replaced the documents this batch was computed
          // from: the batch is discarded, and projecting resumes from the checkpoints it left
          log('projection checkpoint moved by another writer; resuming from the stored checkpoints', error);
          reload = true;
          continue;
        }
        log('projection runner failed; retrying', error);
        await sleep(retryDelayMs);
      } finally {
        clearInterval(heartbeat);
        if (subscription) await bestEffort(subscription.close(), 'a new subscription is opened on retry');
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
      if (subscription) await bestEffort(subscription.close(), 'stopping: nothing reads from it again');
      await loop;
      for (const w of waiters) w.resolve(false);
    },
  };
}
