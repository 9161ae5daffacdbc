import { appendSize, MAX_APPEND_BYTES, type EventMetadata, type EventStore } from '../../ports/eventStore.js';
import type { BlobStore } from '../../ports/blobStore.js';
import { nestedPartEvent, type NestedIndexProgress } from '../../domain/dataItem/nestedIndex.js';
import { toNewEvent } from '../../domain/events.js';
import type { DataItemRepository } from '../acceptance/dataItems.js';
import { DEFAULT_NESTED_LIMITS, walkNested, type Found, type NestedLimits } from './findNested.js';
import { uuidFromName } from './eventIds.js';
import { blockedOf, type BlockCheck } from '../blocklist.js';

/**
 * Bytes of one part at most, as the event store counts an append (appendSize): half of what a
 * server takes by default, so a server configured lower or counting a little differently still
 * takes each part, and each event stays readable in a history (about 1,800 plain items a part).
 * Split by size, not by count: a nested item's content type alone may be 4 KB.
 */
export const PART_MAX_BYTES = MAX_APPEND_BYTES / 2;

/** Entries of bundles nested in a free item that are looked at, by default: each costs a signature check. */
export const DEFAULT_FREE_MAX_ITEMS = 1000;

export interface RecordNestedDeps {
  /** the process's one data-item repository (src/wiring/shared.ts) */
  items: DataItemRepository;
  blobStore: BlobStore;
  /** for paid items */
  limits?: NestedLimits;
  /** entries looked at under a free item (winc 0), all depths together */
  freeMaxItems?: number;
  /** the operator's block list: an entry signed by a blocked owner is not indexed (nor served) */
  blocklist?: BlockCheck;
  now: () => number;
}

/** the limits of the walk under a root: fewer entries under a free one */
export const nestedLimitsFor = (winc: string, deps: Pick<RecordNestedDeps, 'limits' | 'freeMaxItems'>): NestedLimits =>
  winc === '0'
    ? { ...(deps.limits ?? DEFAULT_NESTED_LIMITS), maxItems: deps.freeMaxItems ?? DEFAULT_FREE_MAX_ITEMS, scope: 'a free item' }
    : (deps.limits ?? DEFAULT_NESTED_LIMITS);

/** the walk's check of each entry's owner against the block list (nothing to check without one) */
export const ownerCheck = (blocklist: BlockCheck | undefined) =>
  blocklist ? { ownerBlocked: (addresses: readonly string[]) => (blocklist.isEmpty() ? undefined : blockedOf(blocklist, addresses)) } : {};

/** What one indexing run recorded. */
export interface IndexOutcome {
  /** parts this run appended (0: another run had written them; a part a racing run appended alike is counted by both, stored once) */
  appended: number;
  items: number;
  unindexed: number;
  /** of the last part this run appended */
  position?: bigint;
}

/** A part of an index being filled: its findings, from the walk's `first` finding on. */
interface Part {
  first: number;
  found: Found[];
  /** appendSize of the part's event, as its findings are added (an upper bound: commas counted) */
  bytes: number;
}

/**
 * Indexes the items nested in an accepted item whose payload is a bundle, and has the item's
 * decider record them on its stream, a part at a time as the walk finds them (each part one append
 * of at most PART_MAX_BYTES), each appended after the stream's last event (other events may come
 * between). What its stream says decides what is left to do: nothing when the index is complete,
 * the item unknown, failed or not a bundle; after a crash between parts, the walk runs again (it
 * is deterministic) and records the findings after those the written parts hold. A racing run (the
 * recovery of another process) makes an append conflict: the stream is read again and the findings
 * it recorded are not recorded twice. A part's event id names the findings it holds (see
 * DataItemRepository), so the store keeps a retried append once and never takes two different
 * parts for one. Returns undefined when there was nothing to do.
 */
export async function indexNestedItems(
  deps: RecordNestedDeps,
  rootId: string,
  metadata: Omit<EventMetadata, 'schemaVersion'>,
  signal?: AbortSignal,
): Promise<IndexOutcome | undefined> {
  const { items } = deps;
  const accepted = await items.read(rootId);
  if (accepted.status !== 'accepted' || !accepted.nested || done(accepted.nested)) return undefined;
  let progress = accepted.nested;
  const limits = nestedLimitsFor(accepted.winc, deps);
  const root = { id: rootId, blobKey: accepted.blobKey, rawContentLength: accepted.rawContentLength, payloadDataStart: accepted.payloadDataStart };
  const { now } = deps;
  const outcome: IndexOutcome = { appended: 0, items: 0, unindexed: 0 };
  // what every part costs besides its findings: its event without any (both lists present)
  const empty = nestedPartEvent(rootId, [], now(), true);
  const emptyBytes = appendSize([toNewEvent({ ...empty, data: { ...empty.data, unindexed: [] } }, uuidFromName(rootId), metadata)]);
  const newPart = (first: number): Part => ({ first, found: [], bytes: emptyBytes });

  /** records `part` (what a racing run has not recorded of it); false when another run completed the index meanwhile */
  async function record(part: Part, more: boolean): Promise<boolean> {
    const command = { type: 'RecordNestedPart' as const, data: { id: rootId, first: part.first, found: part.found, more, now: now() } };
    const { events, state, position } = await items.execute(command, metadata);
    if (state.status === 'accepted' && state.nested) progress = state.nested;
    if (events.length === 0) return !done(progress);
    outcome.appended++;
    outcome.position = position;
    return true;
  }

  let seen = 0;
  let part = newPart(progress.findings);
  for await (const found of walkNested(deps.blobStore, root, { limits, ...ownerCheck(deps.blocklist), ...(signal ? { signal } : {}) })) {
    if ('item' in found) outcome.items++;
    else outcome.unindexed++;
    const index = seen++;
    // recorded by an earlier run (in parts of any size: the count of findings is what resumes)
    if (index < progress.findings) continue;
    const bytes = findingBytes(found);
    if (part.found.length > 0 && part.bytes + bytes > PART_MAX_BYTES) {
      if (!(await record(part, true))) return outcome;
      part = newPart(progress.findings);
      // a racing run recorded this one too
      if (index < progress.findings) continue;
    }
    part.found.push(found);
    part.bytes += bytes;
  }
  await record(part, false);
  return outcome;
}

const done = (progress: NestedIndexProgress) => progress.complete || progress.stopped;

/** what a finding adds to its part's event: its JSON and a comma */
const findingBytes = (found: Found): number => Buffer.byteLength(JSON.stringify('item' in found ? found.item : found.unindexed), 'utf8') + 1;
