import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { BlobPointer } from '../../src/adapters/layered/blobBackend.js';
import { LayeredBlobStore } from '../../src/adapters/layered/layeredBlobStore.js';
import { BlobNotFound, type BlobStore } from '../../src/ports/blobStore.js';
import { blobStoreContract } from '../blobStore/contract.js';
import { bytesOf, piecesOf, rejectionOf } from '../blobStore/support.js';
import { MemoryBlobBackend } from './memoryBlobBackend.js';

// The GridFS blob store's logic (layers, pointers, writer, sweep) on the in-memory backend: the
// whole blob store contract runs here, without a server. The GridFS backend itself runs the same
// contract in test/blobStore/gridfs.test.ts, on the MongoDB stand-in or on a real server (MONGO_URL).
blobStoreContract('GridFS layout on an in-memory backend', async () => {
  const store = new LayeredBlobStore(new MemoryBlobBackend());
  return { store, dispose: () => store.close() };
});

const text = async (store: BlobStore, key: string) => (await bytesOf(await store.read(key))).toString('latin1');
const put = (store: BlobStore, key: string, value: string) => store.put(key, piecesOf(Buffer.from(value, 'latin1')));
const writeAt = (store: BlobStore, key: string, offset: number, value: string) => store.writeAt(key, offset, piecesOf(Buffer.from(value, 'latin1')));

describe('GridFS blob store logic (in-memory backend)', function () {
  let backend: MemoryBlobBackend;
  let store: LayeredBlobStore;
  const logged: string[] = [];
  beforeEach(function () {
    backend = new MemoryBlobBackend();
    logged.length = 0;
    store = new LayeredBlobStore(backend, (message) => logged.push(message));
  });
  afterEach(async function () {
    await store.close();
  });

  describe('files', function () {
    it('stores a committed blob as one file named <blob>/1, temporary (.tmp/) until then', async function () {
      const writer = await store.createWriter();
      await writer.write(Buffer.from('abc'));
      expect(backend.names()).to.deep.equal([]);
      await writer.commit('items/a');
      const blob = backend.pointers.get('items/a')!.blob;
      expect(backend.names()).to.deep.equal([`${blob}/1`]);
    });

    it('deletes the files of a replaced blob once no key points at it', async function () {
      await put(store, 'items/a', 'old');
      await put(store, 'items/a', 'new');
      expect(backend.files.size).to.equal(1);
      expect(await text(store, 'items/a')).to.equal('new');
    });

    it('moves a blob of parts without copying a byte', async function () {
      await writeAt(store, 'uploads/u/data', 0, 'ab');
      await writeAt(store, 'uploads/u/data', 2, 'cd');
      const before = [...backend.files.keys()].sort();
      await store.move('uploads/u/data', 'items/i');
      expect([...backend.files.keys()].sort()).to.deep.equal(before);
      expect(await text(store, 'items/i')).to.equal('abcd');
      expect(await store.stat('uploads/u/data')).to.equal(undefined);
    });

    it('deletes the files of the blob a move replaces', async function () {
      await put(store, 'items/i', 'older');
      await writeAt(store, 'uploads/u/data', 0, 'newer');
      await store.move('uploads/u/data', 'items/i');
      expect(backend.files.size).to.equal(1);
      expect(await text(store, 'items/i')).to.equal('newer');
    });

    it('drops a part written again at the same offset with as many bytes or more', async function () {
      await writeAt(store, 'uploads/u/data', 0, 'aaaa');
      await writeAt(store, 'uploads/u/data', 0, 'bbbb');
      await writeAt(store, 'uploads/u/data', 0, 'cc');
      expect(backend.files.size).to.equal(2);
      expect(await text(store, 'uploads/u/data')).to.equal('ccbb');
    });

    it('drops the parts a truncate leaves without a visible byte', async function () {
      await writeAt(store, 'uploads/u/data', 0, 'aaaa');
      await writeAt(store, 'uploads/u/data', 4, 'bbbbbbbb');
      await writeAt(store, 'uploads/u/data', 4, 'cc');
      await store.truncate('uploads/u/data', 6);
      expect([...backend.files.values()].map((f) => f.bytes.toString())).to.have.members(['aaaa', 'cc']);
      expect(await text(store, 'uploads/u/data')).to.equal('aaaacc');
    });

    it('deletes the files of every blob under a prefix', async function () {
      await writeAt(store, 'uploads/u1/data', 0, 'x');
      await put(store, 'uploads/u1/other', 'y');
      await put(store, 'uploads/u10/data', 'z');
      await store.deletePrefix('uploads/u1');
      expect(backend.files.size).to.equal(1);
      expect(await text(store, 'uploads/u10/data')).to.equal('z');
    });

    it('keeps the files while a second key still points at the blob (a move cut short)', async function () {
      await put(store, 'items/a', 'shared');
      const pointer = backend.pointers.get('items/a')!;
      backend.pointers.set('items/b', { ...pointer, cuts: [] });
      await store.delete('items/a');
      expect(await text(store, 'items/b')).to.equal('shared');
    });

    it('removes a part finished after its blob was deleted', async function () {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      async function* slow() {
        yield Buffer.from('early');
        await gate;
        yield Buffer.from('late');
      }
      const writing = store.writeAt('uploads/u/data', 0, slow());
      while (backend.pointers.size === 0) await new Promise((r) => setImmediate(r));
      await store.delete('uploads/u/data');
      release();
      expect(await writing).to.deep.equal({ bytesWritten: 9 });
      expect(backend.files.size).to.equal(0);
      expect(await store.stat('uploads/u/data')).to.equal(undefined);
    });
  });

  describe('commit and abort', function () {
    it('drops the upload of an aborted writer', async function () {
      const writer = await store.createWriter();
      await writer.write(Buffer.from('abc'));
      await writer.abort();
      expect(backend.pending.size).to.equal(0);
      expect(backend.files.size).to.equal(0);
    });

    it('keeps the bytes of a commit whose pointer was written though its answer was lost', async function () {
      const replace = backend.replacePointer.bind(backend);
      backend.replacePointer = async (key: string, pointer: BlobPointer) => {
        await replace(key, pointer);
        throw new Error('connection reset after the write');
      };
      const writer = await store.createWriter();
      await writer.write(Buffer.from('abc'));
      expect((await rejectionOf(writer.commit('items/a'))).message).to.equal('connection reset after the write');
      await writer.abort();
      expect(await text(store, 'items/a')).to.equal('abc');
    });

    it('drops the bytes of a commit that never reached the pointer', async function () {
      backend.replacePointer = async () => {
        throw new Error('no primary');
      };
      const writer = await store.createWriter();
      await writer.write(Buffer.from('abc'));
      await rejectionOf(writer.commit('items/a'));
      await writer.abort();
      expect(backend.files.size).to.equal(0);
    });

    it('still commits when renaming the file fails, and logs it (the sweep renames it later)', async function () {
      backend.publishLayer = async () => {
        throw new Error('rename failed');
      };
      await put(store, 'items/a', 'abc');
      expect(await text(store, 'items/a')).to.equal('abc');
      expect(logged).to.deep.equal(['publishing a committed blob failed (the sweep will)']);
    });

    it('writes chunks issued without waiting in call order', async function () {
      const parts = [randomBytes(5), randomBytes(70_000), randomBytes(1)];
      const writer = await store.createWriter();
      await Promise.all(parts.map((part) => writer.write(part)));
      await writer.commit('items/x');
      expect((await bytesOf(await store.read('items/x'))).equals(Buffer.concat(parts))).to.equal(true);
    });

    it('aborts open writers on close and closes the backend', async function () {
      const writer = await store.createWriter();
      await writer.write(randomBytes(10));
      await store.close();
      expect(backend.closed).to.equal(true);
      expect(backend.pending.size).to.equal(0);
      expect((await rejectionOf(writer.write(randomBytes(1)))).message).to.equal('blob writer aborted');
      expect((await rejectionOf(store.stat('items/x'))).message).to.equal('blob store is closed');
    });
  });

  describe('sweep', function () {
    const hour = 60 * 60 * 1000;
    const leaveTemporary = async (key?: string) => {
      const blob = backend.newBlobId();
      const upload = backend.createLayer(blob, 1, 0, true);
      await upload.write(Buffer.from('left'));
      await upload.finish();
      backend.files.get(upload.id)!.uploadDate = new Date(Date.now() - 2 * hour);
      if (key) backend.pointers.set(key, { blob, seq: 1, cuts: [] });
      return upload.id;
    };

    it('publishes a stale temporary file a key points at (a commit cut short after its pointer)', async function () {
      const id = await leaveTemporary('items/a');
      await store.sweep(hour);
      expect(backend.files.get(id)?.name).to.match(/^[0-9a-f]{24}\/1$/);
      expect(await text(store, 'items/a')).to.equal('left');
    });

    it('deletes a stale temporary file no key points at, and leaves younger ones', async function () {
      await leaveTemporary();
      const writer = await store.createWriter();
      await writer.write(Buffer.from('young'));
      await store.sweep(hour);
      expect(backend.files.size).to.equal(0);
      await writer.commit('items/young');
      expect(await text(store, 'items/young')).to.equal('young');
    });
  });

  describe('reads', function () {
    it('fails a read whose part disappears, rather than returning short bytes', async function () {
      await store.writeAt('uploads/u/data', 0, piecesOf(randomBytes(600 * 1024)));
      const stream = await store.read('uploads/u/data');
      const iterator = stream[Symbol.asyncIterator]();
      await iterator.next();
      backend.files.clear();
      const failure = await rejectionOf(
        (async () => {
          for (;;) if ((await iterator.next()).done) return;
        })(),
      );
      expect(failure.message).to.match(/deleted during the read/);
    });

    it('rejects a read of a key whose pointer went away with BlobNotFound', async function () {
      await put(store, 'items/a', 'abc');
      await store.delete('items/a');
      expect(await rejectionOf(store.read('items/a'))).to.be.instanceOf(BlobNotFound);
    });

    it('answers an empty blob for a key with no part finished yet', async function () {
      await store.writeAt('uploads/u/data', 0, piecesOf(new Uint8Array(0)));
      expect(await store.stat('uploads/u/data')).to.deep.equal({ size: 0 });
    });
  });
});
