import type { EventStore, RecordedEvent } from '../src/ports/eventStore.js';
import { CheckpointConflict, type ReadModelRef, type ReadStore } from '../src/ports/readStore.js';
import { checkpointOf, collectionOf, type AnyProjection } from './definition.js';
import { projectBatch, type ProjectionTarget } from './projectBatch.js';
import { progressCounter, type RebuildProgressListener } from './rebuildProgress.js';
import { WriteBack } from './writeBack.js';
import { WrittenIds } from './writtenIds.js';

export interface RebuildOptions {
  eventStore: EventStore;
  readStore: ReadStore;
  projections: readonly AnyProjection[];
  /** events read and projected at a time (default 5000): large, since nothing waits on a rebuild */
  batchSize?: number;
  /** documents held in memory before they are written (default 50,000; see writeBack.ts) */
  maxHeldDocuments?: number;
  /** afterwards, drop the collections and checkpoints of the older versions of these projections */
  dropOld?: boolean;
  onProgress?: RebuildProgressListener;
  now?: () => number;
}

export interface RebuildResult {
  /** events read, counting those appended while the rebuild ran */
  events: number;
  /** each read model switched, and the position it reflected when switched; empty when $all is */
  promoted: { collection: string; position: bigint }[];
  /** collections (and checkpoints of the same names) of older versions dropped */
  dropped: string[];
}

/** Where a projection is rebuilt: beside the live collection, under names the service never reads. */
export const rebuildRefOf = (p: AnyProjection): ReadModelRef => ({
  collection: `${collectionOf(p)}~rebuild`,
  checkpoint: `${checkpointOf(p)}~rebuild`,
});

/** `name_v1` .. `name_v(N-1)`: the read models earlier versions of the service read. */
export const olderVersionsOf = (p: AnyProjection): ReadModelRef[] =>
  Array.from({ length: p.version - 1 }, (_, i) => {
    const older = { name: p.name, version: i + 1 };
    return { collection: collectionOf(older), checkpoint: checkpointOf(older) };
  });

/**
 * Builds the projections again from position 0 beside the live read models, then switches each in
 * one atomic promote, while the service keeps answering from (and its runner keeps writing to) the
 * live ones. A promote is refused while the live runner is ahead of the rebuild; the rebuild then
 * reads what was appended meanwhile and tries again. The live runner's next commit meets the
 * promoted checkpoint, is refused, and resumes from there (see projectBatch).
 *
 * A live read model whose checkpoint is beyond the event store's last event (an older event store
 * was put back under newer read models, or the store was deleted) reflects events that no longer
 * exist, and would never show those appended from now on: it is replaced too, once the rebuild has
 * read to the end and still finds it ahead (a compare-and-set on that checkpoint).
 */
export async function rebuild(options: RebuildOptions): Promise<RebuildResult> {
  const { eventStore, readStore, batchSize = 5000, maxHeldDocuments = 50_000, now = Date.now } = options;
  const pending: (ProjectionTarget & { live: ReadModelRef })[] = options.projections.map((p) => ({
    projection: p,
    ...rebuildRefOf(p),
    after: undefined,
    live: { collection: collectionOf(p), checkpoint: checkpointOf(p) },
  }));
  // what an interrupted rebuild left is of unknown age: start afresh
  for (const t of pending) {
    await readStore.dropCollection(t.collection);
    await readStore.deleteCheckpoint(t.checkpoint);
  }
  // emptied: from now on they hold only what this rebuild's flushes write
  const written = new Map(pending.map((t) => [t.collection, new WrittenIds()]));
  const progress = progressCounter(options.onProgress, () => eventStore.headPosition(), now);
  const promoted: RebuildResult['promoted'] = [];
  let after: bigint | undefined;

  while (pending.length > 0) {
    const read = await catchUp();
    if (after === undefined) {
      // an empty event store: only read models that claim events need replacing, by empty ones
      if (!(await anyLive())) return { events: 0, promoted, dropped: [] };
      after = 0n;
      await readStore.commit(
        [],
        pending.map((t) => ({ name: t.checkpoint, position: 0n, expected: null })),
      );
      for (const t of pending) t.after = 0n;
    }
    const before = pending.length;
    for (const t of [...pending]) {
      if (!(await readStore.promote({ collection: t.collection, checkpoint: t.checkpoint }, t.live))) continue;
      switched(t);
    }
    // refused with nothing new to read: those live read models are beyond every event
    if (pending.length === before && read === 0) {
      const head = await eventStore.headPosition();
      for (const t of [...pending]) {
        const live = await readStore.getCheckpoint(t.live.checkpoint);
        if (live === undefined || live <= head) continue;
        if (await readStore.promote({ collection: t.collection, checkpoint: t.checkpoint }, t.live, { replacing: live })) switched(t);
      }
      if (pending.length === before) {
        throw new Error(`the live checkpoints of ${pending.map((t) => t.live.checkpoint).join(', ')} are beyond the last event (${after}) and kept moving`);
      }
    }
  }
  const dropped = options.dropOld ? await dropOlderVersions(readStore, options.projections) : [];
  return { events: progress.done(), promoted, dropped };

  function switched(t: (typeof pending)[number]): void {
    pending.splice(pending.indexOf(t), 1);
    promoted.push({ collection: t.live.collection, position: after! });
  }

  async function anyLive(): Promise<boolean> {
    for (const t of pending) if ((await readStore.getCheckpoint(t.live.checkpoint)) !== undefined) return true;
    return false;
  }

  /**
   * Reads and projects until $all has nothing more, the documents held and written a flush at a
   * time (writeBack.ts), all of them before it returns; answers how many events it read.
   */
  async function catchUp(): Promise<number> {
    let read = 0;
    const held = new WriteBack(readStore, written);
    for (;;) {
      const batch = await readBatch(eventStore, after, batchSize);
      if (batch.length > 0) {
        after = await projectRebuilt(held, pending, batch);
        for (const t of pending) t.after = after;
        read += batch.length;
      }
      const last = batch.length < batchSize;
      if (last || held.size >= maxHeldDocuments) await flushRebuilt(held);
      if (batch.length > 0) await progress.read(batch.length, batch[0]!.position, after!);
      if (last) return read;
    }
  }
}

async function readBatch(eventStore: EventStore, after: bigint | undefined, maxCount: number): Promise<RecordedEvent[]> {
  const batch: RecordedEvent[] = [];
  for await (const e of eventStore.readAll(after === undefined ? { maxCount } : { after, maxCount })) batch.push(e);
  return batch;
}

/** the rebuild's checkpoints move only under it, unless another rebuild of the same projection runs */
async function anotherRebuild<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!CheckpointConflict.is(error)) throw error;
    throw new Error(`${error.checkpoint} was moved by another writer: is another rebuild of the same projection running?`, { cause: error });
  }
}
const projectRebuilt = (held: WriteBack, targets: readonly ProjectionTarget[], batch: RecordedEvent[]) =>
  anotherRebuild(() => projectBatch(held, targets, batch));
const flushRebuilt = (held: WriteBack) => anotherRebuild(() => held.flush());

async function dropOlderVersions(readStore: ReadStore, projections: readonly AnyProjection[]): Promise<string[]> {
  const dropped: string[] = [];
  for (const older of projections.flatMap(olderVersionsOf)) {
    await readStore.dropCollection(older.collection);
    await readStore.deleteCheckpoint(older.checkpoint);
    dropped.push(older.collection);
  }
  return dropped;
}
