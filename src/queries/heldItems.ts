import { ItemQuarantined } from '../domain/errors.js';
import type { ReadStore } from '../ports/readStore.js';
import { collectionOf } from '../../projections/definition.js';
import { txStatusProjection, type TxStatusDocument } from '../../projections/txStatus.js';
import { nestedOffsetsProjection, type NestedOffsetsDocument } from '../../projections/nestedOffsets.js';
import type { ItemDataQueries } from './itemData.js';

/**
 * The item reads with the operator's holds applied (src/app/quarantine.ts): an item held, or nested
 * in a root item held (whose bytes are its bytes), is found but not served: `itemPlace` throws
 * ItemQuarantined (451 `Unavailable For Legal Reasons`) for the payload, its ranges, `HEAD` and the
 * header. Kept apart from the reads themselves, which know where bytes are and nothing of holds.
 */
export function withHolds(queries: ItemDataQueries, readStore: Pick<ReadStore, 'get'>): ItemDataQueries {
  const statusOf = async (id: string) => (await readStore.get<TxStatusDocument>(collectionOf(txStatusProjection), id))?.doc;
  /** its own hold; a nested item (no status of its own) its root's, at any depth */
  const isHeld = async (id: string): Promise<boolean> => {
    const own = await statusOf(id);
    if (own) return own.quarantined === true;
    const rootId = (await readStore.get<NestedOffsetsDocument>(collectionOf(nestedOffsetsProjection), id))?.doc?.rootId;
    return rootId !== undefined && (await statusOf(rootId))?.quarantined === true;
  };
  return {
    ...queries,
    async itemPlace(id) {
      const place = await queries.itemPlace(id);
      if (place && (await isHeld(id))) throw new ItemQuarantined(id);
      return place;
    },
  };
}
