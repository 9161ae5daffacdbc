import type { EventStore } from '../src/ports/eventStore.js';
import type { ReadStore } from '../src/ports/readStore.js';
import { allProjections } from './index.js';
import { checkpointOf, type AnyProjection } from './definition.js';

export interface ProjectorLag {
  /** the event store's last position */
  head: bigint;
  /** how far the slowest read model is behind the head (events, in the embedded store; commit-position units in EventStoreDB) */
  behind: bigint;
  /** per projection name: its distance from the head (the head itself when it has no checkpoint yet) */
  byProjection: Record<string, bigint>;
}

/** How far the read models are behind the event store, from the checkpoints in the read store. */
export async function projectorLag(
  eventStore: Pick<EventStore, 'headPosition'>,
  readStore: Pick<ReadStore, 'getCheckpoint'>,
  projections: readonly AnyProjection[] = allProjections,
): Promise<ProjectorLag> {
  const head = await eventStore.headPosition();
  const byProjection: Record<string, bigint> = {};
  let behind = 0n;
  for (const p of projections) {
    const checkpoint = (await readStore.getCheckpoint(checkpointOf(p))) ?? 0n;
    const distance = head > checkpoint ? head - checkpoint : 0n;
    byProjection[p.name] = distance;
    if (distance > behind) behind = distance;
  }
  return { head, behind, byProjection };
}
