import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openFsBlobStore } from '../../src/adapters/fs/blobStore.js';
import type { BlobStore } from '../../src/ports/blobStore.js';

export interface TempBlobStore {
  store: BlobStore;
  /** closes the store and removes its directory */
  dispose(): Promise<void>;
}

/** A real fs blob store in a fresh temp directory, which `dispose` removes. */
export async function tempBlobStore(): Promise<TempBlobStore> {
  const root = await mkdtemp(join(tmpdir(), 'blob-store-test-'));
  const store = await openFsBlobStore({ root, staleTempAfterMs: 0 });
  return {
    store,
    async dispose() {
      await store.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}
