import type { EventStore } from '../src/ports/eventStore.js';
import type { ReadStore } from '../src/ports/readStore.js';
import { allProjections } from './index.js';
import { checkpointOf, type AnyProjection } from './definition.js';

export interface ProjectorLag {
  /** the event store's last position */
  head: bigint;
  /**
   * events the slowest read model has not projected yet, counted up to `cap`: a value of `cap`
   * means "at least that many" (on every store: EventStoreDB's positions are byte offsets, so the
   * events are counted, never subtracted)
   */
  behind: bigint;
  /** per projection name: the events after its checkpoint (all of them, up to `cap`, when it has none yet; 0 when ahead) */
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

/** the default count cap: one more than READY_MAX_LAG's default, so the default bound is told apart */
export const defaultLagCap = 10_001;

/**
 * How far the read models are behind the event store, in events, from the checkpoints in the read
 * store and a count of the events after each (one count per distinct checkpoint, each stopping at
 * `cap`: on EventStoreDB a count is a read, and past the readiness bound only "over" matters). It
 * works across processes: a query replica reads the checkpoints its projector wrote and counts in
 * the shared event store. The checkpoints are read before the head: a projector elsewhere only
 * projects events that exist, so a checkpoint read first can be beyond a head read after it only
 * when the store lost events.
 */
export async function projectorLag(
  eventStore: Pick<EventStore, 'headPosition' | 'countEventsAfter'>,
  readStore: Pick<ReadStore, 'getCheckpoint'>,
  projections: readonly AnyProjection[] = allProjections,
  cap: number = defaultLagCap,
): Promise<ProjectorLag> {
  const { head, checkpoints } = await checkpointsThenHead(eventStore, readStore, projections);
  const counts = new Map<bigint, bigint>();
  for (const [, checkpoint] of checkpoints) {
    if (checkpoint >= head || counts.has(checkpoint)) continue;
    counts.set(checkpoint, BigInt(await eventStore.countEventsAfter(checkpoint, cap)));
  }
  const byProjection: Record<string, bigint> = {};
  const ahead: ReadModelAhead[] = [];
  let behind = 0n;
  for (const [p, checkpoint] of checkpoints) {
    const distance = counts.get(checkpoint) ?? 0n;
    byProjection[p.name] = distance;
    if (distance > behind) behind = distance;
    if (checkpoint > head) ahead.push({ checkpoint: checkpointOf(p), position: checkpoint });
  }
  return { head, behind, byProjection, ahead };
}

/** The read models whose checkpoint is beyond the event store's head (nothing counted), and the head. */
export async function readModelsAhead(
  eventStore: Pick<EventStore, 'headPosition'>,
  readStore: Pick<ReadStore, 'getCheckpoint'>,
  projections: readonly AnyProjection[] = allProjections,
): Promise<{ head: bigint; ahead: ReadModelAhead[] }> {
  const { head, checkpoints } = await checkpointsThenHead(eventStore, readStore, projections);
  const ahead = checkpoints.filter(([, c]) => c > head).map(([p, position]) => ({ checkpoint: checkpointOf(p), position }));
  return { head, ahead };
}

async function checkpointsThenHead(
  eventStore: Pick<EventStore, 'headPosition'>,
  readStore: Pick<ReadStore, 'getCheckpoint'>,
  projections: readonly AnyProjection[],
): Promise<{ head: bigint; checkpoints: [AnyProjection, bigint][] }> {
  const checkpoints: [AnyProjection, bigint][] = [];
  for (const p of projections) checkpoints.push([p, (await readStore.getCheckpoint(checkpointOf(p))) ?? 0n]);
  return { head: await eventStore.headPosition(), checkpoints };
}
