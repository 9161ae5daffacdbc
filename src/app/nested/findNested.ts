import { createHash } from 'node:crypto';
import type { BlobStore } from '../../ports/blobStore.js';
import type { NestedItem } from '../../domain/dataItem/events.js';
import type { Tag } from '../../verify/index.js';
import { bundleEntries, COUNT_BYTES, ENTRY_BYTES, itemCount, UnindexableBundle, type BundleEntry } from './bundleHeader.js';
import { readRange } from './blobRange.js';
import { itemHeads } from './itemHeaders.js';
import { itemHead } from './itemHead.js';
import { isBundle } from './bundleTags.js';
import { verifyEntry } from './verifyEntry.js';
import { createPace } from './pace.js';
import { ownerAddresses } from '../../verify/index.js';

/** An accepted item whose payload is a bundle, as much of it as indexing needs. */
export interface NestedRoot {
  id: string;
  blobKey: string;
  rawContentLength: number;
  payloadDataStart: number;
}

/** A root and its tags (whether its payload is a bundle at all). */
export interface IndexedRoot extends NestedRoot {
  tags: readonly Tag[];
}

export interface NestedLimits {
  /** nested items deeper than this are not looked for (the root's own items are depth 1) */
  maxDepth: number;
  /** bundle entries looked at under one root, all depths together: each costs a signature check */
  maxItems: number;
  /** what the limit applies to, for the reason recorded when it is reached (default `one item`) */
  scope?: string;
}

export const DEFAULT_NESTED_LIMITS: NestedLimits = { maxDepth: 8, maxItems: 100_000 };

/** A bundle or a bundle entry whose items are not indexed, and why. */
export interface Unindexed {
  id: string;
  reason: string;
}

export interface NestedIndex {
  items: NestedItem[];
  unindexed: Unindexed[];
}

/** One finding of the walk: an item whose place is known and whose signature verifies, or what was left out. */
export type Found = { item: NestedItem } | { unindexed: Unindexed };

export interface WalkOptions {
  limits?: NestedLimits;
  /** awaited between entries and chunks: gives the event loop back regularly (pace.ts) */
  pace?: () => Promise<void>;
  /** stops the walk at its next entry or chunk (with the signal's reason) */
  signal?: AbortSignal;
  /**
   * the blocked address among those that name an entry's signer (ownerAddresses), if any: such an
   * entry is not indexed, nor anything under it
   */
  ownerBlocked?: (addresses: readonly string[]) => string | undefined;
  /**
   * false: entries are taken on their headers alone, their signatures not checked (a look for blocked
   * owners before a receipt: it refuses more, never less, than a verifying walk would find)
   */
  verify?: boolean;
}

/** An item whose payload is a bundle, placed in the root's bytes. */
interface Parent {
  id: string;
  /** the item's raw start in the root's bytes */
  rawStart: number;
  rawContentLength: number;
  payloadDataStart: number;
  depth: number;
}

/**
 * The items nested in `root`'s payload (a bundle) at every depth, parents before their children, in
 * the order of their bytes, read from the root's blob: each bundle's header, then each item. An item
 * is indexed when its header parses, its id is the one its bundle's header lists, and its signature
 * verifies over its bytes (the same check as an upload's): an entry that only looks like an item
 * cannot claim another item's id; and, when the walk is given the block list, its owner is not
 * blocked (as an upload of it would be refused, so is its place in someone else's bundle). Nothing is looked for under a bundle whose header is malformed,
 * nor under an item that is not indexed. Findings come one at a time, so the caller records them as
 * they come and memory stays at one bundle's entries. Blob failures reject.
 */
export async function* walkNested(blobStore: BlobStore, root: NestedRoot, options: WalkOptions = {}): AsyncGenerator<Found> {
  const walk: Walk = {
    blobStore,
    blobKey: root.blobKey,
    limits: options.limits ?? DEFAULT_NESTED_LIMITS,
    reserved: 0,
    pace: options.pace ?? createPace(),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.ownerBlocked ? { ownerBlocked: options.ownerBlocked } : {}),
    verify: options.verify ?? true,
  };
  yield* indexBundle(walk, { id: root.id, rawStart: 0, rawContentLength: root.rawContentLength, payloadDataStart: root.payloadDataStart, depth: 0 });
}

/** The whole index of `root` in memory, nothing when its tags do not make it a bundle (for tests and tools). */
export async function findNestedItems(blobStore: BlobStore, root: IndexedRoot, limits = DEFAULT_NESTED_LIMITS): Promise<NestedIndex> {
  const found: NestedIndex = { items: [], unindexed: [] };
  if (!isBundle(root.tags)) return found;
  for await (const f of walkNested(blobStore, root, { limits })) {
    if ('item' in f) found.items.push(f.item);
    else found.unindexed.push(f.unindexed);
  }
  return found;
}

interface Walk {
  blobStore: BlobStore;
  blobKey: string;
  limits: NestedLimits;
  /** entries of the bundle headers taken so far, against the limit */
  reserved: number;
  pace: () => Promise<void>;
  signal?: AbortSignal;
  ownerBlocked?: (addresses: readonly string[]) => string | undefined;
  verify: boolean;
}

async function* indexBundle(walk: Walk, parent: Parent): AsyncGenerator<Found> {
  const { blobStore, blobKey, limits } = walk;
  const bundleStart = parent.rawStart + parent.payloadDataStart;
  const bundleLength = parent.rawContentLength - parent.payloadDataStart;
  let entries: BundleEntry[];
  let count;
  try {
    if (bundleLength < COUNT_BYTES) throw new UnindexableBundle(`a payload of ${bundleLength} bytes has no room for an item count`);
    count = itemCount(await readRange(blobStore, blobKey, bundleStart, COUNT_BYTES), bundleLength);
    const taken = Math.min(count, limits.maxItems - walk.reserved);
    const entryBytes = await readRange(blobStore, blobKey, bundleStart + COUNT_BYTES, ENTRY_BYTES * taken);
    entries = [];
    for (const entry of bundleEntries(entryBytes, taken, count, bundleLength)) {
      entries.push(entry);
      if (entries.length % 1024 === 0) await walk.pace();
    }
  } catch (error) {
    if (!(error instanceof UnindexableBundle)) throw error;
    yield { unindexed: { id: parent.id, reason: error.reason } };
    return;
  }
  walk.reserved += entries.length;
  if (entries.length < count) {
    const left = count - entries.length;
    const reason = `${left} of its ${count} items are not indexed: at most ${limits.maxItems} are indexed under ${limits.scope ?? 'one item'}`;
    yield { unindexed: { id: parent.id, reason } };
  }

  for await (const { entry, head } of itemHeads(blobStore, blobKey, bundleStart, entries)) {
    walk.signal?.throwIfAborted();
    await walk.pace();
    const at = `at byte ${entry.offset} of the bundle in ${parent.id}`;
    const header = itemHead(head);
    if (!header) {
      yield { unindexed: { id: entry.id, reason: `no valid data item header ${at}` } };
      continue;
    }
    if (header.id !== entry.id) {
      yield { unindexed: { id: entry.id, reason: `the item ${at} has id ${header.id}` } };
      continue;
    }
    const blocked = walk.ownerBlocked?.(ownerAddresses(header.signatureType, header.owner, header.signature));
    if (blocked !== undefined) {
      yield { unindexed: { id: entry.id, reason: `its owner ${blocked} is blocked` } };
      continue;
    }
    const offsetInRootItem = bundleStart + entry.offset;
    const pace = async () => {
      walk.signal?.throwIfAborted();
      await walk.pace();
    };
    const problem = walk.verify ? await verifyEntry(blobStore, { blobKey, start: offsetInRootItem, size: entry.size, head }, pace) : undefined;
    if (problem !== undefined) {
      yield { unindexed: { id: entry.id, reason: `the item ${at} does not verify: ${problem}` } };
      continue;
    }
    const item: NestedItem = {
      id: entry.id,
      parentId: parent.id,
      startOffsetInParentDataItemPayload: entry.offset,
      offsetInRootItem,
      rawContentLength: entry.size,
      payloadDataStart: header.payloadDataStart,
      payloadContentType: header.contentType,
      depth: parent.depth + 1,
      owner: createHash('sha256').update(header.owner).digest('base64url'),
      signatureType: header.signatureType,
      tags: header.tags.map(({ name, value }) => ({ name, value })),
      ...(header.target !== undefined ? { target: header.target } : {}),
      ...(header.anchor !== undefined ? { anchor: header.anchor } : {}),
    };
    yield { item };
    if (!isBundle(header.tags)) continue;
    if (item.depth >= limits.maxDepth) {
      yield { unindexed: { id: item.id, reason: `its bundle is nested deeper than ${limits.maxDepth}` } };
      continue;
    }
    const { rawContentLength, payloadDataStart, depth } = item;
    yield* indexBundle(walk, { id: item.id, rawStart: offsetInRootItem, rawContentLength, payloadDataStart, depth });
  }
}
