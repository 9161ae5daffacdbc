import type { DataItem } from 'arbundles';
import type { BlobStore, ByteRange } from '../../../src/ports/blobStore.js';
import type { BlobEntry } from '../../../src/bundling/index.js';

export async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

/** Stores each item's raw bytes under `items/<id>` and returns the bundle entries, in order. */
export async function storeItems(store: BlobStore, items: readonly DataItem[]): Promise<BlobEntry[]> {
  const entries: BlobEntry[] = [];
  for (const item of items) {
    const blobKey = `items/${item.id}`;
    await store.put(blobKey, once(item.getRaw()));
    entries.push({ id: item.id, size: item.getRaw().byteLength, blobKey });
  }
  return entries;
}

export async function collect(source: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const part of source) parts.push(part);
  return Buffer.concat(parts);
}

/** A store that records every read, to show which blobs and ranges a stream touched. */
export function recordingReads(store: BlobStore): { store: BlobStore; reads: { key: string; range?: ByteRange }[] } {
  const reads: { key: string; range?: ByteRange }[] = [];
  const read: BlobStore['read'] = (key, range) => {
    reads.push(range === undefined ? { key } : { key, range });
    return store.read(key, range);
  };
  // methods bound to the real store: the fs adapter keeps its state in private fields
  const recording = new Proxy(store, {
    get: (target, property) => {
      if (property === 'read') return read;
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store: recording, reads };
}
