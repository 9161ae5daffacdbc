import type { TxStatusDocument } from '../../projections/txStatus.js';
import type { TxOffsets } from '../http/queries.js';

/**
 * CONTRACT.md section 6: offsets exist once the item's root bundle transaction is known, for items
 * accepted within the retention.
 */
export function offsetsOf(doc: TxStatusDocument | undefined, now: number, retentionMs: number): TxOffsets | undefined {
  if (!doc || doc.bundleId === undefined || doc.startOffsetInRootBundle === undefined) return undefined;
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
