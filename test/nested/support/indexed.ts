import type { NestedItemsIndexed } from '../../../src/domain/dataItem/events.js';
import type { RunningService } from '../../../src/service.js';
import { dataItemStream, type DataItemId } from '../../../src/domain/ids.js';

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
  const until = Date.now() + limitMs;
  for (;;) {
    const parts = await indexPartsOf(service, rootId);
    if (isIndexed(parts)) {
      if (!(await service.projections.waitFor(await service.eventStore.headPosition(), Math.max(0, until - Date.now())))) {
        throw new Error(`the read models did not catch up with the nested index of ${rootId} within ${limitMs} ms`);
      }
      return parts;
    }
    if (Date.now() > until) throw new Error(`the nested index of ${rootId} was not complete within ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
