import type { BlobBackend, LayerUpload } from '../layered/blobBackend.js';
import { asBlobStoreUnavailable } from './errors.js';

async function guard<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw asBlobStoreUnavailable(error);
  }
}

async function* guardEach<T>(source: () => AsyncIterable<T>): AsyncGenerator<T> {
  try {
    yield* source();
  } catch (error) {
    throw asBlobStoreUnavailable(error);
  }
}

const guardUpload = (upload: LayerUpload): LayerUpload => ({
  get id() {
    return upload.id;
  },
  write: (chunk) => guard(() => upload.write(chunk)),
  finish: () => guard(() => upload.finish()),
  abort: () => guard(() => upload.abort()),
});

/**
 * The backend with every failure of the deployment (unreachable, no primary, disk full: see
 * `errors.ts`) turned into the port's BlobStoreUnavailable, so the layered store above answers it
 * whichever call met it; any other error passes unchanged.
 */
export function guardedBlobBackend(backend: BlobBackend): BlobBackend {
  return {
    pointer: (key) => guard(() => backend.pointer(key)),
    reserveLayer: (key) => guard(() => backend.reserveLayer(key)),
    replacePointer: (key, pointer) => guard(() => backend.replacePointer(key, pointer)),
    removePointer: (key, blob) => guard(() => backend.removePointer(key, blob)),
    appendCut: (key, blob, size) => guard(() => backend.appendCut(key, blob, size)),
    keysUnder: (prefix) => guardEach(() => backend.keysUnder(prefix)),
    isReferenced: (blob) => guard(() => backend.isReferenced(blob)),
    newBlobId: () => backend.newBlobId(),
    createLayer: (blob, seq, offset, temporary) => guardUpload(backend.createLayer(blob, seq, offset, temporary)),
    layers: (blob, offsets) => guard(() => backend.layers(blob, offsets)),
    publishLayer: (id, blob, seq) => guard(() => backend.publishLayer(id, blob, seq)),
    deleteLayers: (ids) => guard(() => backend.deleteLayers(ids)),
    readLayer: (id, start, end) => guardEach(() => backend.readLayer(id, start, end)),
    staleTemporaryLayers: (before) => guardEach(() => backend.staleTemporaryLayers(before)),
    close: () => backend.close(),
  };
}
