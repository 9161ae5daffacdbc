import type { ReadStore } from '../ports/readStore.js';
import type { DataItemId } from '../domain/ids.js';
import type { TxOffsets } from './types.js';
import { collectionOf } from '../../projections/definition.js';
import { txStatusProjection, type TxStatusDocument } from '../../projections/txStatus.js';
import { nestedOffsetsProjection, type NestedOffsetsDocument } from '../../projections/nestedOffsets.js';

/**
 * CONTRACT.md section 6: offsets exist once the item's root bundle transaction is known, for items
 * accepted within the retention.
 */
export function offsetsOf(doc: TxStatusDocument | undefined, now: number, retentionMs: number): TxOffsets | undefined {
  if (!doc || doc.bundleId === undefined || doc.startOffsetInRootBundle === undefined) return undefined;
  // its bytes are not the ones the bundle will carry: that bundle is being dropped
  if (doc.damaged) return undefined;
  if (doc.timestamp < now - retentionMs) return undefined;
  return {
    rootBundleId: doc.bundleId,
    startOffsetInRootBundle: doc.startOffsetInRootBundle,
    rawContentLength: doc.rawContentLength,
    payloadContentType: doc.payloadContentType,
    payloadDataStart: doc.payloadDataStart,
    payloadContentLength: doc.payloadContentLength,
  };
}

/**
 * An item nested in an uploaded bundle lives in its root item's bytes, so it is in the root's
 * bundle transaction at the root's offset plus its own offset in the root; it has offsets when and
 * for as long as its root has (the retention counts from the root's acceptance).
 */
export function nestedOffsetsOf(nested: NestedOffsetsDocument, root: TxStatusDocument | undefined, now: number, retentionMs: number): TxOffsets | undefined {
  const rootOffsets = offsetsOf(root, now, retentionMs);
  if (!rootOffsets) return undefined;
  return {
    rootBundleId: rootOffsets.rootBundleId,
    startOffsetInRootBundle: rootOffsets.startOffsetInRootBundle + nested.offsetInRootItem,
    rawContentLength: nested.rawContentLength,
    payloadContentType: nested.payloadContentType,
    payloadDataStart: nested.payloadDataStart,
    payloadContentLength: nested.rawContentLength - nested.payloadDataStart,
    parentDataItemId: nested.parentId,
    startOffsetInParentDataItemPayload: nested.startOffsetInParentDataItemPayload,
  };
}

/** `GET /tx/:id/offsets`: a top-level item from its own status, a nested one through its root's. */
export function createTxOffsetsQuery(deps: {
  readStore: ReadStore;
  retentionMs: number;
  now: () => number;
}): (id: DataItemId) => Promise<TxOffsets | undefined> {
  const { readStore, retentionMs, now } = deps;
  const statusOf = async (id: string) => (await readStore.get<TxStatusDocument>(collectionOf(txStatusProjection), id))?.doc;
  return async (id) => {
    const own = await statusOf(id);
    if (own) return offsetsOf(own, now(), retentionMs);
    const nested = (await readStore.get<NestedOffsetsDocument>(collectionOf(nestedOffsetsProjection), id))?.doc;
    if (!nested) return undefined;
    return nestedOffsetsOf(nested, await statusOf(nested.rootId), now(), retentionMs);
  };
}
