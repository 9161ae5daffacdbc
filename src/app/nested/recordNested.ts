import { WrongExpectedRevision, type EventMetadata, type EventStore } from '../../ports/eventStore.js';
import type { BlobStore } from '../../ports/blobStore.js';
import { dataItemStream, type DataItemId } from '../../domain/ids.js';
import type { NestedItemsIndexed } from '../../domain/dataItem/events.js';
import { toNewEvent } from '../../domain/events.js';
import { DEFAULT_NESTED_LIMITS, walkNested, type Found, type NestedIndex, type NestedLimits } from './findNested.js';
import { uuidFromName } from './eventIds.js';
import { readIndexProgress, type IndexProgress } from './indexProgress.js';

/**
 * Findings per event (items and entries left out together): a bundle of 10000 items would make one
 * event of about 3 MB; in parts of at most about 300 KB, each event stays readable in a history and
 * each append under the scale-out store's limit (1 MiB per append by default).
 */
export const ITEMS_PER_EVENT = 1000;

/** Entries of bundles nested in a free item that are looked at, by default: each costs a signature check. */
export const DEFAULT_FREE_MAX_ITEMS = 1000;

export interface RecordNestedDeps {
  eventStore: EventStore;
  blobStore: BlobStore;
  /** for paid items */
  limits?: NestedLimits;
  /** entries looked at under a free item (winc 0), all depths together */
  freeMaxItems?: number;
  now?: () => number;
}

/** What one indexing run recorded. */
export interface IndexOutcome {
  /** parts this run appended (0: another run had written them) */
  appended: number;
  items: number;
  unindexed: number;
  /** of the last part this run appended */
  position?: bigint;
}

/** A part of an index: the findings of one event, and whether more follow. */
interface Part extends NestedIndex {
  more: boolean;
}

/**
 * Indexes the items nested in an accepted item whose payload is a bundle, and records them on its
 * stream, a part at a time as the walk finds them, each appended after the stream's last event
 * (other events may come between). What its stream says decides what is left to do: nothing when
 * the index is complete, the item unknown, failed or not a bundle; after a crash between parts, the
 * walk runs again (it is deterministic) and appends from the first part not written. A racing run
 * (the recovery of another process) makes an append conflict: the stream is read again and the
 * parts it wrote are not written twice. Returns undefined when there was nothing to do.
 */
export async function indexNestedItems(
  deps: RecordNestedDeps,
  rootId: string,
  metadata: Omit<EventMetadata, 'schemaVersion'>,
  signal?: AbortSignal,
): Promise<IndexOutcome | undefined> {
  const stream = dataItemStream(rootId as DataItemId);
  let progress = await readIndexProgress(deps.eventStore, stream);
  const accepted = progress.accepted;
  if (!accepted?.nestedBundle || done(progress)) return undefined;
  const limits =
    accepted.winc === '0'
      ? { ...(deps.limits ?? DEFAULT_NESTED_LIMITS), maxItems: deps.freeMaxItems ?? DEFAULT_FREE_MAX_ITEMS, scope: 'a free item' }
      : (deps.limits ?? DEFAULT_NESTED_LIMITS);
  const root = { id: rootId, blobKey: accepted.blobKey, rawContentLength: accepted.rawContentLength, payloadDataStart: accepted.payloadDataStart };
  const outcome: IndexOutcome = { appended: 0, items: 0, unindexed: 0 };
  let number = 0;
  const findings = walkNested(deps.blobStore, root, { limits, ...(signal ? { signal } : {}) });
  for await (const part of partsOf(findings)) {
    outcome.items += part.items.length;
    outcome.unindexed += part.unindexed.length;
    for (let attempt = 0; number >= progress.parts; attempt++) {
      if (done(progress)) return outcome;
      // the same id for the same part, whichever run appends it
      const eventId = uuidFromName(`NestedItemsIndexed/${rootId}/${number}`);
      const event = toNewEvent(partEvent(rootId, part, (deps.now ?? Date.now)()), eventId, metadata);
      try {
        const { position, nextRevision } = await deps.eventStore.append(stream, [event], progress.revision);
        progress = { ...progress, revision: nextRevision, parts: progress.parts + 1, complete: !part.more };
        outcome.appended++;
        outcome.position = position;
      } catch (error) {
        if (!WrongExpectedRevision.is(error) || attempt >= 5) throw error;
        progress = await readIndexProgress(deps.eventStore, stream);
      }
    }
    number++;
  }
  return outcome;
}

const done = (progress: IndexProgress) => progress.complete || progress.failed;

/** The findings in parts of at most ITEMS_PER_EVENT; a part is handed on once it is known whether more follow. */
async function* partsOf(findings: AsyncIterable<Found>): AsyncGenerator<Part> {
  let part = emptyPart();
  for await (const f of findings) {
    if (size(part) === ITEMS_PER_EVENT) {
      yield { ...part, more: true };
      part = emptyPart();
    }
    add(part, f);
  }
  yield { ...part, more: false };
}

const emptyPart = (): Part => ({ items: [], unindexed: [], more: false });
const size = (part: NestedIndex) => part.items.length + part.unindexed.length;
function add(part: NestedIndex, f: Found): void {
  if ('item' in f) part.items.push(f.item);
  else part.unindexed.push(f.unindexed);
}

function partEvent(rootId: string, part: Part, timestamp: number): NestedItemsIndexed {
  const unindexed = part.unindexed.length > 0 ? { unindexed: part.unindexed } : {};
  return { type: 'NestedItemsIndexed', data: { id: rootId, items: part.items, ...unindexed, timestamp, verified: true, ...(part.more ? { more: true } : {}) } };
}
