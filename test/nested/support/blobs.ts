import type { DataItem } from 'arbundles';
import type { BlobStore } from '../../../src/ports/blobStore.js';
import type { IndexedRoot } from '../../../src/app/nested/findNested.js';

/** Stores an item as acceptance does (`items/<id>`) and describes it as acceptance hands it on. */
export async function storedRoot(store: BlobStore, item: DataItem): Promise<IndexedRoot> {
  const blobKey = `items/${item.id}`;
  await store.put(
    blobKey,
    (async function* () {
      yield item.getRaw();
    })(),
  );
  return { id: item.id, blobKey, rawContentLength: item.getRaw().length, payloadDataStart: item.getStartOfData(), tags: item.tags };
}
