import type { EventStore, StreamName } from '../../ports/eventStore.js';
import { DataItemAccepted } from '../../domain/dataItem/events.js';

/** How far a root item's nested index is, as its stream records it. */
export interface IndexProgress {
  accepted: DataItemAccepted['data'] | undefined;
  failed: boolean;
  /** `NestedItemsIndexed` parts recorded */
  parts: number;
  /** findings (items and entries left out) those parts hold: the walk resumes after them */
  findings: number;
  /** the last part is recorded (or an earlier version recorded the whole index at once) */
  complete: boolean;
  /** the stream's last revision, to append after */
  revision: bigint;
}

/**
 * Reads the item's stream. Parts are not parsed whole (thousands of items each): how many findings
 * they hold and whether more follow is all that is needed of them.
 */
export async function readIndexProgress(eventStore: EventStore, stream: StreamName): Promise<IndexProgress> {
  const progress: IndexProgress = { accepted: undefined, failed: false, parts: 0, findings: 0, complete: false, revision: -1n };
  for await (const recorded of eventStore.readStream(stream)) {
    progress.revision = recorded.revision;
    if (recorded.type === 'DataItemAccepted') progress.accepted = DataItemAccepted.parse({ type: recorded.type, data: recorded.data }).data;
    else if (recorded.type === 'DataItemFailed') progress.failed = true;
    else if (recorded.type === 'NestedItemsIndexed') {
      const part = recorded.data as { items?: unknown[]; unindexed?: unknown[]; more?: unknown };
      progress.parts++;
      progress.findings += (part.items?.length ?? 0) + (part.unindexed?.length ?? 0);
      if (part.more !== true) progress.complete = true;
    }
  }
  return progress;
}
