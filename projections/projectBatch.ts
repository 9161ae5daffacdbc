import type { RecordedEvent } from '../src/ports/eventStore.js';
import type { DocumentWrite, ReadStore } from '../src/ports/readStore.js';
import { fromRecorded } from '../src/domain/events.js';
import { handledTypesOf, type EventToApply, type PositionedDocument } from './apply.js';
import { indexed, type AnyProjection } from './definition.js';
import { applyFollowing, type FollowerSource } from './follow.js';

/** Where one projection's documents and checkpoint live, and the position they reflect. */
export interface ProjectionTarget {
  projection: AnyProjection;
  collection: string;
  checkpoint: string;
  /** the checkpoint as this writer last wrote or read it; undefined: none yet */
  after: bigint | undefined;
}

/**
 * Applies a batch of `$all` to each target and commits the changed documents with every target's
 * checkpoint moved to the batch's last position (never backwards), in one commit. Each checkpoint is written on the
 * condition that it is still `after` (CheckpointConflict otherwise, with nothing written): the batch
 * was computed from the documents as of `after`, and is worthless if another writer moved them.
 * The live runner and the rebuild both go through here. Answers the batch's last position.
 */
export async function projectBatch(
  readStore: Pick<ReadStore, 'commit'> & FollowerSource,
  targets: readonly ProjectionTarget[],
  batch: readonly RecordedEvent[],
): Promise<bigint> {
  const last = batch[batch.length - 1];
  if (last === undefined) throw new Error('projectBatch needs at least one event');
  // parsed once for every projection, and only an event one of them handles: validation is the
  // costly part of a replay (the bridge's outcomes, for one, are in no read model)
  const handled = targets.map((t) => handledTypesOf(t.projection));
  const parsed: EventToApply[] = [];
  for (const recorded of batch) {
    if (!handled.some((types) => types.has(recorded.type))) continue;
    const event = fromRecorded(recorded);
    if (event !== undefined) parsed.push({ recorded, event });
  }
  const writes: DocumentWrite[] = [];
  for (const { projection: p, collection, after } of targets) {
    // each event's documents asked once: both the read below and applyEvents need them
    const types = handledTypesOf(p);
    const relevant: Required<EventToApply>[] = [];
    const ids: string[] = [];
    for (const { recorded, event } of parsed) {
      if ((after !== undefined && recorded.position <= after) || !types.has(event.type)) continue;
      const eventIds = p.documentIds(event);
      relevant.push({ recorded, event, ids: eventIds });
      for (const id of eventIds) ids.push(id);
    }
    if (relevant.length === 0) continue;
    const docs: Map<string, PositionedDocument<unknown>> = await readStore.getMany(collection, ids);
    const stored = new Set(docs.keys());
    for (const id of await applyFollowing(readStore, p, collection, relevant, docs, stored)) {
      const d = docs.get(id)!;
      // created and deleted within the batch (a reservation settled at once): nothing to write
      if (d.doc === undefined && !stored.has(id)) continue;
      writes.push({ collection, id, doc: d.doc, position: d.position, ...indexed(p, id, d.doc) });
    }
  }
  await readStore.commit(
    writes,
    targets.map((t) => ({ name: t.checkpoint, position: advanced(t.after, last.position), expected: t.after ?? null })),
  );
  return last.position;
}

/**
 * A checkpoint after a batch ending at `last`: never backwards, since a projection promoted ahead of
 * the others sees batches it already reflects while they catch up.
 */
export const advanced = (after: bigint | undefined, last: bigint): bigint => (after !== undefined && after > last ? after : last);
