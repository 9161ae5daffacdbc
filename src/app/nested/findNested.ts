import type { BlobStore } from '../../ports/blobStore.js';
import type { NestedItem } from '../../domain/dataItem/events.js';
import type { Tag } from '../../verify/index.js';
import { bundleEntries, COUNT_BYTES, ENTRY_BYTES, itemCount, UnindexableBundle } from './bundleHeader.js';
import { readRange } from './blobRange.js';
import { itemHeaders } from './itemHeaders.js';
import { isBundle } from './bundleTags.js';

/** An accepted item, as much of it as indexing needs. */
export interface IndexedRoot {
  id: string;
  blobKey: string;
  rawContentLength: number;
  payloadDataStart: number;
  tags: readonly Tag[];
}

export interface NestedLimits {
  /** nested items deeper than this are not looked for (the root's own items are depth 1) */
  maxDepth: number;
  /** items indexed under one root, all depths together */
  maxItems: number;
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
 * The items nested in `root`'s payload at every depth, parents before their children, read from the
 * root's blob by ranges: the bundle headers, then each item's first bytes. An item is indexed when
 * its header parses and its id is the one its bundle's header gives; nothing is looked for under a
 * bundle whose header is malformed, nor under an item that is not indexed. Blob failures reject.
 */
export async function findNestedItems(blobStore: BlobStore, root: IndexedRoot, limits = DEFAULT_NESTED_LIMITS): Promise<NestedIndex> {
  const found: NestedIndex = { items: [], unindexed: [] };
  if (!isBundle(root.tags)) return found;
  const parent = { id: root.id, rawStart: 0, rawContentLength: root.rawContentLength, payloadDataStart: root.payloadDataStart, depth: 0 };
  await indexBundle({ blobStore, blobKey: root.blobKey, limits, found, reserved: 0 }, parent);
  return found;
}

interface Walk {
  blobStore: BlobStore;
  blobKey: string;
  limits: NestedLimits;
  found: NestedIndex;
  /** entries of the bundle headers read so far: a bundle is taken whole or not at all, within the limit */
  reserved: number;
}

async function indexBundle(walk: Walk, parent: Parent): Promise<void> {
  const { blobStore, blobKey, limits, found } = walk;
  const bundleStart = parent.rawStart + parent.payloadDataStart;
  const bundleLength = parent.rawContentLength - parent.payloadDataStart;
  let entries;
  try {
    if (bundleLength < COUNT_BYTES) throw new UnindexableBundle(`a payload of ${bundleLength} bytes has no room for an item count`);
    const count = itemCount(await readRange(blobStore, blobKey, bundleStart, COUNT_BYTES), bundleLength, limits.maxItems - walk.reserved);
    const entryBytes = await readRange(blobStore, blobKey, bundleStart + COUNT_BYTES, ENTRY_BYTES * count);
    entries = bundleEntries(entryBytes, count, bundleLength);
    walk.reserved += count;
  } catch (error) {
    if (!(error instanceof UnindexableBundle)) throw error;
    found.unindexed.push({ id: parent.id, reason: error.reason });
    return;
  }

  for await (const { entry, header } of itemHeaders(blobStore, blobKey, bundleStart, entries)) {
    if (!header) {
      found.unindexed.push({ id: entry.id, reason: `no valid data item header at byte ${entry.offset} of the bundle in ${parent.id}` });
      continue;
    }
    if (header.id !== entry.id) {
      found.unindexed.push({ id: entry.id, reason: `the item at byte ${entry.offset} of the bundle in ${parent.id} has id ${header.id}` });
      continue;
    }
    const item: NestedItem = {
      id: entry.id,
      parentId: parent.id,
      startOffsetInParentDataItemPayload: entry.offset,
      offsetInRootItem: bundleStart + entry.offset,
      rawContentLength: entry.size,
      payloadDataStart: header.payloadDataStart,
      payloadContentType: header.contentType,
      depth: parent.depth + 1,
    };
    found.items.push(item);
    if (!isBundle(header.tags)) continue;
    if (item.depth >= limits.maxDepth) {
      found.unindexed.push({ id: item.id, reason: `its bundle is nested deeper than ${limits.maxDepth}` });
      continue;
    }
    const { id, offsetInRootItem: rawStart, rawContentLength, payloadDataStart, depth } = item;
    await indexBundle(walk, { id, rawStart, rawContentLength, payloadDataStart, depth });
  }
}
