import type { EventStore } from '../src/ports/eventStore.js';
import type { ReadStore } from '../src/ports/readStore.js';
import type { AnyProjection } from './definition.js';
import { allProjections } from './index.js';
import { readModelsAhead } from './lag.js';

/** Start-up refused: read models are ahead of the event store. The message says what to do. */
export class ReadModelsAhead extends Error {
  override readonly name = 'ReadModelsAhead';
}

/**
 * Refuses read models whose checkpoint is beyond the event store's head: they were built from events
 * this store does not have (an older copy of it was put back, or it was deleted and started anew).
 * Served as they are, they would answer for items the store no longer knows, and every event appended
 * from now on at a position they claim to have seen would never reach them: uploads receipted, then
 * 404 and never bundled.
 */
export async function refuseReadModelsAhead(
  eventStore: Pick<EventStore, 'headPosition'>,
  readStore: Pick<ReadStore, 'getCheckpoint'>,
  projections: readonly AnyProjection[] = allProjections,
): Promise<void> {
  const { head, ahead } = await readModelsAhead(eventStore, readStore, projections);
  if (ahead.length === 0) return;
  const models = ahead.map((m) => `${m.checkpoint} (checkpoint ${m.position})`).join(', ');
  throw new ReadModelsAhead(
    `read model${ahead.length === 1 ? '' : 's'} ${models} ${ahead.length === 1 ? 'is' : 'are'} ahead of the event store, ` +
      `whose head is position ${head}: the event store is older than the read models (an older copy was put back, or it was replaced). ` +
      'Nothing appended now would reach them. Either put back the event store that goes with them, or rebuild them from this one ' +
      'with `npm run rebuild` (same configuration, service stopped), then start again.',
  );
}
