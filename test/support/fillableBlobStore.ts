import { writeFile } from 'node:fs/promises';
import { diskFault } from '../../src/adapters/fs/diskFaults.js';
import type { BlobStore, BlobWriter } from '../../src/ports/blobStore.js';

/** A real ENOSPC, as the kernel answers it: a write to /dev/full, which is always full. */
export async function realEnospc(): Promise<Error> {
  const error = await writeFile('/dev/full', 'x').then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  if ((error as NodeJS.ErrnoException | undefined)?.code !== 'ENOSPC') throw new Error(`/dev/full did not answer ENOSPC: ${String(error)}`);
  return error!;
}

export interface FillableBlobStore {
  store: BlobStore;
  /** from now on every write of bytes fails as on a full disk under the fs store */
  fill(): Promise<void>;
  /** space is back */
  free(): void;
}

/**
 * TEST DOUBLE around a real blob store (test code only): while "full", every operation that writes
 * bytes or names (a writer's write and commit, writeAt, move, put) fails with what the
 * fs store answers on a full disk: BlobStoreUnavailable caused by a real ENOSPC from the kernel (the
 * fs store's own mapping, `diskFault`). Reads, stats and deletes work, as they do on a full disk.
 * `test/blobStore/fsDiskFaults.test.ts` shows the fs store answering the same on a device that is full.
 */
export function fillableBlobStore(inner: BlobStore): FillableBlobStore {
  let full: Error | undefined;
  const refuse = () => {
    if (full) throw diskFault(full);
  };
  const guardedWriter = (writer: BlobWriter): BlobWriter => ({
    write: async (chunk) => (refuse(), writer.write(chunk)),
    get bytesWritten() {
      return writer.bytesWritten;
    },
    commit: async (key) => (refuse(), writer.commit(key)),
    abort: () => writer.abort(),
  });
  const store: BlobStore = {
    // an empty file still fits on a full disk (an inode, no data block): the bytes are what fail
    createWriter: async () => guardedWriter(await inner.createWriter()),
    put: async (key, source) => (refuse(), inner.put(key, source)),
    read: (key, range) => inner.read(key, range),
    stat: (key) => inner.stat(key),
    writeAt: async (key, offset, source) => (refuse(), inner.writeAt(key, offset, source)),
    truncate: (key, size) => inner.truncate(key, size),
    move: async (from, to) => (refuse(), inner.move(from, to)),
    delete: (key) => inner.delete(key),
    deletePrefix: (prefix) => inner.deletePrefix(prefix),
    list: (prefix) => inner.list(prefix),
    close: () => inner.close(),
  };
  return {
    store,
    fill: async () => {
      full = await realEnospc();
    },
    free: () => {
      full = undefined;
    },
  };
}
