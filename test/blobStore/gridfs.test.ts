import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { GridFSBucket, ObjectId, type Db } from 'mongodb';
import { openGridFsBlobStore, type GridFsBlobStoreOptions } from '../../src/adapters/mongo/gridfsBlobStore.js';
import type { BlobStore } from '../../src/ports/blobStore.js';
import { mongoTarget, testDatabases } from '../mongo/server.js';
import { blobStoreContract } from './contract.js';
import { bytesOf, piecesOf } from './support.js';

describe(`GridFS blob store on ${mongoTarget}`, function () {
  const databases = testDatabases();
  // one database for the run, a bucket per test: every test starts from an empty store
  let database: string;
  let buckets = 0;
  const db = (): Db => databases.client().db(database);
  const dropBucket = async (bucketName: string) => {
    for (const suffix of ['files', 'chunks', 'keys']) await db().collection(`${bucketName}.${suffix}`).drop();
  };
  const open = (bucketName: string, options: Partial<GridFsBlobStoreOptions> = {}) =>
    openGridFsBlobStore({ client: databases.client(), database, bucketName, ...options });
  before(async function () {
    await databases.start();
    database = databases.fresh();
  });
  after(async function () {
    await databases.drop(database);
    await databases.close();
  });

  blobStoreContract('GridFS', async () => {
    const bucketName = `contract${buckets++}`;
    const store = await open(bucketName);
    return {
      store,
      dispose: async () => {
        await store.close();
        await dropBucket(bucketName);
      },
    };
  });

  describe('layout and housekeeping', function () {
    let bucketName: string;
    let store: BlobStore;
    const files = () => db().collection(`${bucketName}.files`);
    const chunks = () => db().collection(`${bucketName}.chunks`);
    const keys = () => db().collection<{ _id: string; blob: ObjectId; seq: number; cuts: { seq: number; size: number }[] }>(`${bucketName}.keys`);
    const text = async (key: string) => (await bytesOf(await store.read(key))).toString('latin1');
    const writeAt = (key: string, offset: number, value: string) => store.writeAt(key, offset, piecesOf(Buffer.from(value, 'latin1')));

    beforeEach(async function () {
      bucketName = `layout${buckets++}`;
      store = await open(bucketName, { chunkSizeBytes: 1000 });
    });
    afterEach(async function () {
      await store.close();
      await dropBucket(bucketName);
    });

    it('stores a committed blob as one GridFS file <blob>/1 and its key as a pointer to the blob', async function () {
      await store.put('items/a', piecesOf(randomBytes(2500)));
      const pointer = await keys().findOne({ _id: 'items/a' });
      const stored = await files().find().toArray();
      expect(stored.map((f) => f.filename)).to.deep.equal([`${pointer!.blob.toHexString()}/1`]);
      expect(stored[0]).to.include({ length: 2500, chunkSize: 1000 });
      expect(await chunks().countDocuments()).to.equal(3);
    });

    it('deletes the files and chunks of a replaced blob and of a deleted one', async function () {
      await store.put('items/a', piecesOf(randomBytes(2500)));
      await store.put('items/a', piecesOf(randomBytes(10)));
      expect(await files().countDocuments()).to.equal(1);
      expect(await chunks().countDocuments()).to.equal(1);
      await store.delete('items/a');
      expect([await files().countDocuments(), await chunks().countDocuments(), await keys().countDocuments()]).to.deep.equal([0, 0, 0]);
    });

    it('reads every range across GridFS chunks, parts and holes exactly', async function () {
      const model = Buffer.alloc(7300);
      const parts: [number, number][] = [
        [0, 2500],
        [2500, 999],
        [3499, 1],
        [5000, 2300],
        [1200, 1300],
      ];
      for (const [offset, length] of parts) {
        const bytes = randomBytes(length);
        bytes.copy(model, offset);
        await store.writeAt('uploads/u/data', offset, piecesOf(bytes, 333));
      }
      expect(await store.stat('uploads/u/data')).to.deep.equal({ size: model.length });
      expect((await bytesOf(await store.read('uploads/u/data'))).equals(model)).to.equal(true);
      const edges = [0, 1, 999, 1000, 1001, 1199, 1200, 2499, 2500, 2999, 3000, 3498, 3499, 3500, 4999, 5000, 5999, 6000, 7299];
      for (const start of edges) {
        for (const end of edges) {
          if (end < start) continue;
          const read = await bytesOf(await store.read('uploads/u/data', { start, end }));
          expect(read.equals(model.subarray(start, end + 1)), `${start}-${end}`).to.equal(true);
        }
      }
    });

    it('keeps zeros in holes and after a cut, as a file does', async function () {
      await writeAt('uploads/u/data', 0, 'abcdefgh');
      await writeAt('uploads/u/data', 10, 'kl');
      await store.truncate('uploads/u/data', 3);
      await writeAt('uploads/u/data', 6, 'XY');
      expect(await text('uploads/u/data')).to.equal('abc\0\0\0XY');
      await store.truncate('uploads/u/data', 100);
      expect(await store.stat('uploads/u/data')).to.deep.equal({ size: 8 });
    });

    it('moves a blob of parts by moving its pointer: the files stay as they are', async function () {
      await writeAt('uploads/u/data', 0, 'ab');
      await writeAt('uploads/u/data', 2, 'cd');
      const before = (await files().find().toArray()).map((f) => String(f._id)).sort();
      await store.move('uploads/u/data', 'items/i');
      expect((await files().find().toArray()).map((f) => String(f._id)).sort()).to.deep.equal(before);
      expect(await text('items/i')).to.equal('abcd');
      expect(await keys().countDocuments({ _id: 'uploads/u/data' })).to.equal(0);
    });

    it('deletes the files and chunks of every blob under a prefix, and only those', async function () {
      await writeAt('uploads/u1/data', 0, 'x'.repeat(1500));
      await store.put('uploads/u10/data', piecesOf(Buffer.from('y')));
      await store.deletePrefix('uploads/u1');
      expect((await keys().find().toArray()).map((k) => k._id)).to.deep.equal(['uploads/u10/data']);
      expect(await files().countDocuments()).to.equal(1);
      expect(await chunks().countDocuments()).to.equal(1);
    });

    it('at open, publishes a stale temporary file a key points at and deletes one no key points at', async function () {
      const bucket = new GridFSBucket(db(), { bucketName });
      const leave = async (blob: ObjectId) => {
        const upload = bucket.openUploadStream(`.tmp/${blob.toHexString()}/1`, { metadata: { blob, seq: 1, offset: 0 } });
        await new Promise<void>((resolve, reject) => upload.end(Buffer.from('left'), (error?: Error | null) => (error ? reject(error) : resolve())));
        await files().updateOne({ _id: upload.id }, { $set: { uploadDate: new Date(Date.now() - 2 * 60 * 60 * 1000) } });
        return upload.id;
      };
      const committed = new ObjectId();
      const kept = await leave(committed);
      await keys().insertOne({ _id: 'items/a', blob: committed, seq: 1, cuts: [] });
      await leave(new ObjectId());
      const reopened = await open(bucketName);
      try {
        expect((await files().find().toArray()).map((f) => [String(f._id), f.filename])).to.deep.equal([[String(kept), `${committed.toHexString()}/1`]]);
        expect((await bytesOf(await reopened.read('items/a'))).toString()).to.equal('left');
      } finally {
        await reopened.close();
      }
    });
  });
});
