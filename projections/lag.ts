import type { EventStore } from '../src/ports/eventStore.js';
import type { ReadStore } from '../src/ports/readStore.js';
import { allProjections } from './index.js';
import { checkpointOf, type AnyProjection } from './definition.js';

export interface ProjectorLag {
  /** the event store's last position */
  head: bigint;
  /** how far the slowest read model is behind the head (events, in the embedded store; commit-position units in EventStoreDB) */
  behind: bigint;
  /** per projection name: its distance from the head (the head itself when it has no checkpoint yet; 0 when ahead) */
  byProjection: Record<string, bigint>;
  /**
   * read models whose checkpoint is beyond the head: they reflect events the event store does not
   * have (an older copy of it was put back, or it was replaced), and what is appended now at
   * positions they claim to have seen is never projected into them
   */
  ahead: ReadModelAhead[];
}

export interface ReadModelAhead {
  /** its checkpoint's name (`tx-status_v1`) */
  checkpoint: string;
  position: bigint;
}

/**
 * How far the read models are behind the event store, from the checkpoints in the read store. The
 * checkpoints are read before the head: a projector elsewhere only projects events that exist, so a
 * checkpoint read first can be beyond a head read after it only when the store lost events.
 */
export async function projectorLag(
  eventStore: Pick<EventStore, 'headPosition'>,
  readStore: Pick<ReadStore, 'getCheckpoint'>,
  projections: readonly AnyProjection[] = allProjections,
): Promise<ProjectorLag> {
  const checkpoints: [AnyProjection, bigint][] = [];
  for (const p of projections) checkpoints.push([p, (await readStore.getCheckpoint(checkpointOf(p))) ?? 0n]);
  const head = await eventStore.headPosition();
  const byProjection: Record<string, bigint> = {};
  const ahead: ReadModelAhead[] = [];
  let behind = 0n;
  for (const [p, checkpoint] of checkpoints) {
    const distance = head > checkpoint ? head - checkpoint : 0n;
    byProjection[p.name] = distance;
    if (distance > behind) behind = distance;
    if (checkpoint > head) ahead.push({ checkpoint: checkpointOf(p), position: checkpoint });
  }
  return { head, behind, byProjection, ahead };
}
