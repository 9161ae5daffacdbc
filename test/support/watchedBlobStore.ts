import type { BlobStore, BlobWriter } from '../../src/ports/blobStore.js';

export interface WatchedBlobStore {
  store: BlobStore;
  /** blobs being received now: writers neither committed nor aborted, and puts not yet settled */
  receiving(): number;
}

/**
 * A real blob store (test code only) that counts the blobs being received through it, for tests that
 * must know an upload is in its handler while the client holds its body back: the blob of a small
 * item is in memory until committed, so no file tells.
 */
export function watchedBlobStore(inner: BlobStore): WatchedBlobStore {
  let receiving = 0;
  const ended = <T>(settled: Promise<T>): Promise<T> => settled.finally(() => receiving--);
  const watched = (writer: BlobWriter): BlobWriter => {
    let open = true;
    const end = () => {
      if (open) receiving--;
      open = false;
    };
    return {
      write: (chunk) => writer.write(chunk),
      get bytesWritten() {
        return writer.bytesWritten;
      },
      commit: (key) => writer.commit(key).finally(end),
      abort: () => writer.abort().finally(end),
    };
  };
  const store = new Proxy(inner, {
    get(target, property, receiver) {
      if (property === 'createWriter') {
        return async () => {
          const writer = await target.createWriter();
          receiving++;
          return watched(writer);
        };
      }
      if (property === 'put') {
        return (key: string, source: AsyncIterable<Uint8Array>) => {
          receiving++;
          return ended(target.put(key, source));
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store, receiving: () => receiving };
}
