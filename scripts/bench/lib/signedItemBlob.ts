import type { BlobStore } from '../../../src/ports/blobStore.js';
import { syntheticItem } from './syntheticItem.js';

/** Writes a signed item of exactly `size` bytes to `items/<id>` of the blob store, one 4 MiB piece in memory. */
export async function putSignedItem(store: BlobStore, size: number): Promise<{ id: string; size: number }> {
  const item = await syntheticItem(size);
  const writer = await store.createWriter();
  try {
    await writer.write(item.header);
    for (const piece of item.payload()) await writer.write(piece);
    await writer.commit(`items/${item.id}`);
  } catch (error) {
    await writer.abort();
    throw error;
  }
  return { id: item.id, size };
}
