import type { NestedItemsIndexed } from '../../../src/domain/dataItem/events.js';
import type { RunningService } from '../../../src/service.js';
import { dataItemStream, type DataItemId } from '../../../src/domain/ids.js';
import { eventually } from '../../support/eventually.js';

type Parts = NestedItemsIndexed['data'][];

/** The parts of the root's nested index recorded so far, in order. */
export async function indexPartsOf(service: Pick<RunningService, 'eventStore'>, rootId: string): Promise<Parts> {
  const parts: Parts = [];
  for await (const e of service.eventStore.readStream(dataItemStream(rootId as DataItemId))) {
    if (e.type === 'NestedItemsIndexed') parts.push(e.data as NestedItemsIndexed['data']);
  }
  return parts;
}

/** whether the root's nested index is complete: its last part (no more to follow) is recorded */
export const isIndexed = (parts: Parts): boolean => parts.some((p) => p.more !== true);

/**
 * Waits until the root's nested index (written in the background after the upload answered) is
 * complete and the read models reflect it; answers its parts. Polls, with a generous deadline.
 */
export async function nestedIndexed(service: Pick<RunningService, 'eventStore' | 'projections'>, rootId: string, limitMs = 60_000): Promise<Parts> {
  const started = performance.now();
  const parts = await eventually(() => indexPartsOf(service, rootId), isIndexed, `the nested index of ${rootId} complete`, limitMs);
  const left = Math.max(0, limitMs - (performance.now() - started));
  if (!(await service.projections.waitFor(await service.eventStore.headPosition(), left))) {
    throw new Error(`the read models did not catch up with the nested index of ${rootId} within ${limitMs} ms`);
  }
  return parts;
}
