import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { MongoNetworkError, MongoServerError } from 'mongodb';
import type { BlobBackend } from '../../src/adapters/layered/blobBackend.js';
import { guardedBlobBackend } from '../../src/adapters/mongo/guardedBlobBackend.js';
import { LayeredBlobStore } from '../../src/adapters/layered/layeredBlobStore.js';
import { BlobStoreUnavailable } from '../../src/ports/blobStore.js';
import { piecesOf, rejectionOf } from '../blobStore/support.js';
import { MemoryBlobBackend } from './memoryBlobBackend.js';

/** The in-memory backend, failing every call (and every layer write) with `failure` while it is set. */
function faultyBackend(): { backend: BlobBackend; fail(error: Error | undefined): void } {
  const inner = new MemoryBlobBackend();
  let failure: Error | undefined;
  const check = () => {
    if (failure) throw failure;
  };
  const backend = new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function' || property === 'newBlobId' || property === 'close') return value;
      if (property === 'createLayer') {
        return (...args: Parameters<BlobBackend['createLayer']>) => {
          const upload = target.createLayer(...args);
          return {
            ...upload,
            id: upload.id,
            write: async (chunk: Uint8Array) => (check(), upload.write(chunk)),
            finish: async () => (check(), upload.finish()),
          };
        };
      }
      return async (...args: unknown[]) => {
        check();
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { backend, fail: (error) => (failure = error) };
}

describe('GridFS blob store on a deployment that fails', function () {
  const unavailableFailures: [string, Error][] = [
    ['the server is out of disk space (14031)', new MongoServerError({ message: 'Insufficient free space', code: 14031 })],
    ['no primary (10107)', new MongoServerError({ message: 'not primary', code: 10107 })],
    ['the network fails', new MongoNetworkError('connection reset')],
  ];
  for (const [what, failure] of unavailableFailures) {
    it(`answers BlobStoreUnavailable when ${what}, to a put, a part, a stat and a move; and works again after`, async function () {
      const { backend, fail } = faultyBackend();
      const store = new LayeredBlobStore(guardedBlobBackend(backend));
      try {
        await store.put('items/a', piecesOf(randomBytes(10)));
        fail(failure);
        // each attempt made only when the one before was refused: a rejection nothing awaits yet is
        // unhandled, which a handler another test file loads (solc's emscripten code) rethrows
        for (const attempt of [
          () => store.put('items/b', piecesOf(randomBytes(10))),
          () => store.writeAt('uploads/u/data', 0, piecesOf(randomBytes(10))),
          () => store.stat('items/a'),
          () => store.move('items/a', 'items/c'),
        ]) {
          const error = await rejectionOf(attempt());
          expect(error).to.be.instanceOf(BlobStoreUnavailable);
          expect(error.cause).to.equal(failure);
        }
        fail(undefined);
        await store.put('items/b', piecesOf(randomBytes(10)));
        expect(await store.stat('items/b')).to.deep.equal({ size: 10 });
      } finally {
        await store.close();
      }
    });
  }

  it('keeps any other failure as it is', async function () {
    const { backend, fail } = faultyBackend();
    const store = new LayeredBlobStore(guardedBlobBackend(backend));
    try {
      const bug = new TypeError('bug');
      fail(bug);
      expect(await rejectionOf(store.stat('items/a'))).to.equal(bug);
      const duplicate = new MongoServerError({ message: 'E11000', code: 11000 });
      fail(duplicate);
      expect(await rejectionOf(store.put('items/a', piecesOf(randomBytes(10))))).to.equal(duplicate);
    } finally {
      fail(undefined);
      await store.close();
    }
  });
});
