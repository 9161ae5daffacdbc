import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataItem } from 'arbundles';
import { openFsBlobStore } from '../../../src/adapters/fs/blobStore.js';
import type { BlobStore } from '../../../src/ports/blobStore.js';
import type { IndexedRoot } from '../../../src/app/nested/findNested.js';

/** A real fs blob store in a fresh temp directory, which `dispose` removes. */
export async function tempBlobStore(): Promise<{ store: BlobStore; dispose(): Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), 'nested-test-'));
  const store = await openFsBlobStore({ root, staleTempAfterMs: 0 });
  return {
    store,
    async dispose() {
      await store.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

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
