import { join } from 'node:path';
import { openFsBlobStore } from '../../src/adapters/fs/blobStore.js';
import { BlobNotFound } from '../../src/ports/blobStore.js';

/**
 * The bytes the file store of a service's data directory holds under `key` (`items/<id>`), read
 * through a store of its own: a multi-part item is a composed blob, a directory rather than a file
 * (src/adapters/fs/composed.ts). Undefined when there is no such blob.
 */
export async function storedBlob(dataDir: string, key: string): Promise<Buffer | undefined> {
  // sweeps none of the running service's temp files
  const store = await openFsBlobStore({ root: join(dataDir, 'blobs'), staleTempAfterMs: Number.MAX_SAFE_INTEGER });
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of await store.read(key)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  } catch (error) {
    if (BlobNotFound.is(error)) return undefined;
    throw error;
  } finally {
    await store.close();
  }
}
