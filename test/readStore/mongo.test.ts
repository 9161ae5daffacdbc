import { expect } from 'chai';
import { openMongoReadStore, type MongoReadStore } from '../../src/adapters/mongo/readStore.js';
import { mongoTarget, testDatabases } from '../mongo/server.js';
import { readStoreContract } from './contract.js';

describe(`MongoDB read store on ${mongoTarget}`, function () {
  const databases = testDatabases();
  before(() => databases.start());
  after(() => databases.close());

  // a database per test: the contract asserts what an empty store answers
  readStoreContract('MongoDB', async () => {
    const database = databases.fresh();
    const store = await openMongoReadStore({ client: databases.client(), database });
    return { store, cleanup: () => databases.drop(database) };
  });

  describe('replays and races', function () {
    let database: string;
    let store: MongoReadStore;
    const open = () => openMongoReadStore({ client: databases.client(), database });
    const catalog = () => databases.client().db(database).collection<{ _id: string; physical: string }>('catalog');
    beforeEach(async function () {
      database = databases.fresh();
      store = await open();
    });
    afterEach(async function () {
      await store.close();
      await databases.drop(database);
    });

    it('keeps the newer document when an older write arrives later', async function () {
      await store.commit([{ collection: 'c', id: 'a', doc: { v: 'new' }, position: 5n }], []);
      await store.commit([{ collection: 'c', id: 'a', doc: { v: 'old' }, position: 3n }], []);
      await store.commit([{ collection: 'c', id: 'a', doc: { v: 'same' }, position: 5n }], []);
      expect(await store.get('c', 'a')).to.deep.equal({ doc: { v: 'new' }, position: 5n });
    });

    it('does not bring back a document deleted at p by replaying an older event, but a newer one does', async function () {
      await store.commit([{ collection: 'c', id: 'a', doc: { v: 1 }, position: 2n }], []);
      await store.commit([{ collection: 'c', id: 'a', doc: undefined, position: 5n }], []);
      await store.commit([{ collection: 'c', id: 'a', doc: { v: 'replayed' }, position: 3n }], []);
      expect(await store.get('c', 'a')).to.equal(undefined);
      expect(await store.getMany('c', ['a'])).to.deep.equal(new Map());
      expect(await store.scan('c', { limit: 10 })).to.deep.equal([]);
      await store.commit([{ collection: 'c', id: 'a', doc: { v: 'again' }, position: 6n }], []);
      expect(await store.get('c', 'a')).to.deep.equal({ doc: { v: 'again' }, position: 6n });
    });

    it('changes nothing when a batch is committed twice', async function () {
      const batch = [
        { collection: 'c', id: 'a', doc: { n: 1 }, position: 10n },
        { collection: 'c', id: 'b', doc: undefined, position: 11n },
        { collection: 'd', id: 'a', doc: [1, 2], position: 12n },
      ];
      await store.commit(batch, [{ name: 'p', position: 12n }]);
      const before = [await store.scan('c', { limit: 10 }), await store.scan('d', { limit: 10 }), await store.getCheckpoint('p')];
      await store.commit(batch, [{ name: 'p', position: 12n }]);
      expect([await store.scan('c', { limit: 10 }), await store.scan('d', { limit: 10 }), await store.getCheckpoint('p')]).to.deep.equal(before);
    });

    it('moves a checkpoint only forward', async function () {
      await store.commit([], [{ name: 'p', position: 9n }]);
      await store.commit([], [{ name: 'p', position: 5n }]);
      expect(await store.getCheckpoint('p')).to.equal(9n);
    });

    it('keeps the newest of racing commits of a new document, from several stores', async function () {
      const others = [await open(), await open()];
      try {
        const stores = [store, ...others];
        await Promise.all(
          Array.from({ length: 30 }, (_, i) =>
            stores[i % 3]!.commit([{ collection: 'c', id: 'new', doc: { i }, position: BigInt(i + 1) }], [{ name: 'p', position: BigInt(i + 1) }]),
          ),
        );
        expect(await store.get('c', 'new')).to.deep.equal({ doc: { i: 29 }, position: 30n });
        expect(await store.getCheckpoint('p')).to.equal(30n);
      } finally {
        await Promise.all(others.map((o) => o.close()));
      }
    });

    it('gives a free lease to exactly one of many racing holders', async function () {
      const taken = await Promise.all(Array.from({ length: 10 }, (_, i) => store.tryLease('bundler', `h${i}`, 1000, 0)));
      expect(taken.filter(Boolean)).to.have.length(1);
    });

    it('purges tombstones up to a position, and only tombstones', async function () {
      await store.commit(
        [
          { collection: 'c', id: 'a', doc: undefined, position: 3n },
          { collection: 'c', id: 'b', doc: undefined, position: 8n },
          { collection: 'c', id: 'c', doc: { kept: true }, position: 1n },
        ],
        [],
      );
      expect(await store.purgeTombstones('c', 5n)).to.equal(1);
      // with the tombstone gone, an event older than the deletion is no longer refused
      await store.commit([{ collection: 'c', id: 'a', doc: { back: true }, position: 2n }], []);
      await store.commit([{ collection: 'c', id: 'b', doc: { back: true }, position: 2n }], []);
      expect((await store.scan('c', { limit: 10 })).map((d) => d.id)).to.deep.equal(['a', 'c']);
    });

    it('stores documents as JSON reads them back, like the SQLite store', async function () {
      await store.commit([{ collection: 'c', id: 'a', doc: { gone: undefined, big: 2 ** 40, list: [1, 'x', null], nested: { ok: true } }, position: 1n }], []);
      expect((await store.get('c', 'a'))?.doc).to.deep.equal({ big: 2 ** 40, list: [1, 'x', null], nested: { ok: true } });
    });

    it('accepts read-model names MongoDB refuses as collection names', async function () {
      await store.commit([{ collection: 'a$b.c', id: 'x', doc: 1, position: 1n }], []);
      expect((await store.get('a$b.c', 'x'))?.doc).to.equal(1);
      await store.dropCollection('a$b.c');
      expect(await store.get('a$b.c', 'x')).to.equal(undefined);
    });

    it('keeps a read model in the collection its catalog entry names, indexed so scans skip tombstones', async function () {
      await store.commit([{ collection: 'uploads_v1', id: 'a', doc: {}, position: 1n }], []);
      const entry = await catalog().findOne({ _id: 'uploads_v1' });
      expect(entry?.physical).to.match(/^docs\.uploads_v1\.[0-9a-f]{24}$/);
      const indexes = await databases.client().db(database).collection(entry!.physical).indexes();
      expect(indexes.map((i) => i.key)).to.deep.include({ live: 1, _id: 1 });
    });

    it('promotes by rewriting catalog entries: another store sees the new documents, the old collection retires', async function () {
      await store.commit([{ collection: 'm', id: 'a', doc: 'old', position: 1n }], [{ name: 'm', position: 1n }]);
      await store.commit([{ collection: 'm~b', id: 'a', doc: 'new', position: 2n }], [{ name: 'm~b', position: 2n }]);
      const old = (await catalog().findOne({ _id: 'm' }))!.physical;
      const built = (await catalog().findOne({ _id: 'm~b' }))!.physical;
      expect(await store.promote({ collection: 'm~b', checkpoint: 'm~b' }, { collection: 'm', checkpoint: 'm' })).to.equal(true);
      expect((await catalog().findOne({ _id: 'm' }))?.physical).to.equal(built);
      expect(await catalog().findOne({ _id: 'm~b' })).to.equal(null);
      const retired = await databases.client().db(database).collection<{ _id: string }>('retired').findOne({ _id: old });
      expect(retired).to.not.equal(null);
      const other = await open();
      try {
        expect(await other.get('m', 'a')).to.deep.equal({ doc: 'new', position: 2n });
        expect(await other.get('m~b', 'a')).to.equal(undefined);
      } finally {
        await other.close();
      }
    });

    it('refuses a commit whose compare-and-set lost to a promote, writing none of it', async function () {
      await store.commit([{ collection: 'm', id: 'a', doc: 'live', position: 5n }], [{ name: 'm', position: 5n, expected: null }]);
      await store.commit([{ collection: 'm~b', id: 'a', doc: 'built', position: 6n }], [{ name: 'm~b', position: 6n }]);
      await store.promote({ collection: 'm~b', checkpoint: 'm~b' }, { collection: 'm', checkpoint: 'm' });
      let failure: unknown;
      await store
        .commit([{ collection: 'm', id: 'b', doc: 'from the old model', position: 7n }], [{ name: 'm', position: 7n, expected: 5n }])
        .catch((e: unknown) => (failure = e));
      expect(failure).to.include({ name: 'CheckpointConflict', checkpoint: 'm', expected: 5n, actual: 6n });
      expect(await store.get('m', 'b')).to.equal(undefined);
    });

    it('writes nothing of a commit with a position beyond int64', async function () {
      let failure: unknown;
      await store
        .commit(
          [
            { collection: 'c', id: 'a', doc: {}, position: 1n },
            { collection: 'c', id: 'b', doc: {}, position: 2n ** 63n },
          ],
          [],
        )
        .catch((e: unknown) => (failure = e));
      expect(failure).to.be.instanceOf(RangeError);
      expect(await store.get('c', 'a')).to.equal(undefined);
    });

    it('leaves a client it was given open when it closes', async function () {
      const other = await open();
      await other.close();
      expect(await databases.client().db(database).command({ ping: 1 })).to.include({ ok: 1 });
    });
  });
});
