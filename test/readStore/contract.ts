import { expect } from 'chai';
import { CheckpointConflict, type ReadStore } from '../../src/ports/readStore.js';

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** One suite for every read store adapter (SQLite; MongoDB on the stand-in, or on a real server with MONGO_URL). */
export function readStoreContract(name: string, open: () => Promise<{ store: ReadStore; cleanup(): Promise<void> }>) {
  describe(`read store contract: ${name}`, () => {
    let store: ReadStore;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      ({ store, cleanup } = await open());
    });
    afterEach(async () => {
      await store.close();
      await cleanup();
    });

    it('answers undefined for a missing document and a missing checkpoint', async () => {
      expect(await store.get('c', 'nope')).to.equal(undefined);
      expect(await store.getCheckpoint('p')).to.equal(undefined);
    });

    it('writes documents with the position they reflect and reads them back', async () => {
      await store.commit([{ collection: 'c', id: 'a', doc: { n: 1, s: 'x' }, position: 7n }], []);
      expect(await store.get('c', 'a')).to.deep.equal({ doc: { n: 1, s: 'x' }, position: 7n });
    });

    it('replaces a document and deletes one written as undefined', async () => {
      await store.commit([{ collection: 'c', id: 'a', doc: { n: 1 }, position: 1n }], []);
      await store.commit([{ collection: 'c', id: 'a', doc: { n: 2 }, position: 2n }], []);
      expect(await store.get('c', 'a')).to.deep.equal({ doc: { n: 2 }, position: 2n });
      await store.commit([{ collection: 'c', id: 'a', doc: undefined, position: 3n }], []);
      expect(await store.get('c', 'a')).to.equal(undefined);
    });

    it('takes a probe write (readiness) that no read sees, as often as asked', async () => {
      await store.probeWrite();
      await store.probeWrite();
      expect(await store.scan('write_probe', { limit: 10 })).to.deep.equal([]);
      expect(await store.getCheckpoint('write_probe')).to.equal(undefined);
    });

    it('keeps collections apart', async () => {
      await store.commit(
        [
          { collection: 'c1', id: 'a', doc: 1, position: 1n },
          { collection: 'c2', id: 'a', doc: 2, position: 1n },
        ],
        [],
      );
      expect((await store.get('c1', 'a'))?.doc).to.equal(1);
      expect((await store.get('c2', 'a'))?.doc).to.equal(2);
      await store.dropCollection('c1');
      expect(await store.get('c1', 'a')).to.equal(undefined);
      expect((await store.get('c2', 'a'))?.doc).to.equal(2);
    });

    it('gets many documents at once, over a thousand ids, ignoring missing and repeated ids', async () => {
      const writes = Array.from({ length: 1200 }, (_, i) => ({ collection: 'c', id: `d${i}`, doc: { i }, position: BigInt(i + 1) }));
      await store.commit(writes, []);
      const ids = [...writes.map((w) => w.id), 'missing', 'd0'];
      const many = await store.getMany<{ i: number }>('c', ids);
      expect(many.size).to.equal(1200);
      expect(many.get('d1199')).to.deep.equal({ doc: { i: 1199 }, position: 1200n });
    });

    it('scans a collection in id order, a page at a time', async () => {
      await store.commit(
        ['b', 'a', 'd', 'c'].map((id, i) => ({ collection: 'c', id, doc: { id }, position: BigInt(i + 1) })),
        [],
      );
      await store.commit([{ collection: 'other', id: 'aa', doc: {}, position: 9n }], []);
      const first = await store.scan<{ id: string }>('c', { limit: 3 });
      expect(first.map((d) => d.id)).to.deep.equal(['a', 'b', 'c']);
      expect(first[0]).to.deep.equal({ id: 'a', doc: { id: 'a' }, position: 2n });
      const rest = await store.scan('c', { afterId: 'c', limit: 3 });
      expect(rest.map((d) => d.id)).to.deep.equal(['d']);
    });

    it('scans ids in the order of their UTF-8 bytes, upper case before lower case, whatever the locale', async () => {
      // upload ids are random base64url: an upload's chunks ("<upload>/<offset>") are one id range
      // only if every store orders ids by their bytes
      const ids = ['bT0s/0', 'On1v/0', 'On1v/1', 'é', 'Z', '_', '-', 'a'];
      await store.commit(
        ids.map((id, i) => ({ collection: 'c', id, doc: {}, position: BigInt(i + 1) })),
        [],
      );
      expect((await store.scan('c', { limit: 100 })).map((d) => d.id)).to.deep.equal(['-', 'On1v/0', 'On1v/1', 'Z', '_', 'a', 'bT0s/0', 'é']);
      expect((await store.scan('c', { afterId: 'On1v/', limit: 2 })).map((d) => d.id)).to.deep.equal(['On1v/0', 'On1v/1']);
    });

    it('writes checkpoints with documents and deletes them', async () => {
      await store.commit([{ collection: 'c', id: 'a', doc: {}, position: 5n }], [{ name: 'p_v1', position: 5n }]);
      expect(await store.getCheckpoint('p_v1')).to.equal(5n);
      await store.commit([], [{ name: 'p_v1', position: 9n }]);
      expect(await store.getCheckpoint('p_v1')).to.equal(9n);
      await store.deleteCheckpoint('p_v1');
      expect(await store.getCheckpoint('p_v1')).to.equal(undefined);
    });

    it('gives a lease to one holder until it expires, renewing it for that holder', async () => {
      expect(await store.tryLease('bundler', 'a', 1000, 0)).to.equal(true);
      expect(await store.tryLease('bundler', 'b', 1000, 999)).to.equal(false);
      expect(await store.tryLease('bundler', 'a', 1000, 999)).to.equal(true);
      expect(await store.tryLease('bundler', 'b', 1000, 1998)).to.equal(false);
      expect(await store.tryLease('bundler', 'b', 1000, 1999)).to.equal(true);
      expect(await store.tryLease('bundler', 'a', 1000, 2000)).to.equal(false);
      expect(await store.tryLease('projector', 'a', 1000, 2000)).to.equal(true);
    });

    it('keeps positions beyond 2^53 exact', async () => {
      const big = 2n ** 60n + 3n;
      await store.commit([{ collection: 'c', id: 'a', doc: {}, position: big }], [{ name: 'p', position: big }]);
      expect((await store.get('c', 'a'))?.position).to.equal(big);
      expect(await store.getCheckpoint('p')).to.equal(big);
    });

    describe('checkpoint compare-and-set', () => {
      it('writes documents and checkpoint when the expected checkpoint holds, null meaning absent', async () => {
        await store.commit([{ collection: 'c', id: 'a', doc: 1, position: 3n }], [{ name: 'p', position: 3n, expected: null }]);
        await store.commit([{ collection: 'c', id: 'a', doc: 2, position: 8n }], [{ name: 'p', position: 8n, expected: 3n }]);
        expect(await store.get('c', 'a')).to.deep.equal({ doc: 2, position: 8n });
        expect(await store.getCheckpoint('p')).to.equal(8n);
      });

      it('refuses a commit whose expected checkpoint differs and writes none of it', async () => {
        await store.commit([{ collection: 'c', id: 'a', doc: 1, position: 5n }], [{ name: 'p', position: 5n }]);
        const error = await rejectionOf(
          store.commit(
            [
              { collection: 'c', id: 'a', doc: 2, position: 9n },
              { collection: 'c', id: 'b', doc: 3, position: 9n },
            ],
            [
              { name: 'q', position: 9n },
              { name: 'p', position: 9n, expected: 4n },
            ],
          ),
        );
        expect(error).to.be.instanceOf(CheckpointConflict);
        expect(error).to.include({ checkpoint: 'p', expected: 4n, actual: 5n });
        expect(await store.get('c', 'a')).to.deep.equal({ doc: 1, position: 5n });
        expect(await store.get('c', 'b')).to.equal(undefined);
        expect(await store.getCheckpoint('p')).to.equal(5n);
        expect(await store.getCheckpoint('q')).to.equal(undefined);
      });

      it('refuses null when the checkpoint exists, and a position when it does not', async () => {
        await store.commit([], [{ name: 'p', position: 5n }]);
        expect(await rejectionOf(store.commit([], [{ name: 'p', position: 6n, expected: null }]))).to.include({
          checkpoint: 'p',
          expected: null,
          actual: 5n,
        });
        expect(await rejectionOf(store.commit([], [{ name: 'absent', position: 6n, expected: 5n }]))).to.include({
          checkpoint: 'absent',
          expected: 5n,
          actual: undefined,
        });
        expect(await store.getCheckpoint('p')).to.equal(5n);
        expect(await store.getCheckpoint('absent')).to.equal(undefined);
      });
    });

    describe('promote', () => {
      const live = { collection: 'm_v1', checkpoint: 'm_v1' };
      const built = { collection: 'm_v1~rebuild', checkpoint: 'm_v1~rebuild' };
      const all = (collection: string) => store.scan(collection, { limit: 100 });

      beforeEach(async () => {
        await store.commit(
          [
            { collection: 'm_v1', id: 'a', doc: { old: 'a' }, position: 2n },
            { collection: 'm_v1', id: 'b', doc: { old: 'b' }, position: 4n },
          ],
          [{ name: 'm_v1', position: 5n }],
        );
      });

      it('replaces the live documents and checkpoint with the ones built beside them', async () => {
        await store.commit(
          [
            { collection: 'm_v1~rebuild', id: 'b', doc: { new: 'b' }, position: 4n },
            { collection: 'm_v1~rebuild', id: 'c', doc: { new: 'c' }, position: 7n },
          ],
          [{ name: 'm_v1~rebuild', position: 7n }],
        );
        expect(await store.promote(built, live)).to.equal(true);
        expect(await all('m_v1')).to.deep.equal([
          { id: 'b', doc: { new: 'b' }, position: 4n },
          { id: 'c', doc: { new: 'c' }, position: 7n },
        ]);
        expect(await all('m_v1~rebuild')).to.deep.equal([]);
        expect(await store.getCheckpoint('m_v1')).to.equal(7n);
        expect(await store.getCheckpoint('m_v1~rebuild')).to.equal(undefined);
      });

      it('promotes at the same position as the live checkpoint, and where there is no live checkpoint', async () => {
        await store.commit([{ collection: 'm_v1~rebuild', id: 'x', doc: 1, position: 5n }], [{ name: 'm_v1~rebuild', position: 5n }]);
        expect(await store.promote(built, live)).to.equal(true);
        expect(await all('m_v1')).to.deep.equal([{ id: 'x', doc: 1, position: 5n }]);
        await store.commit([{ collection: 'n~rebuild', id: 'y', doc: 2, position: 1n }], [{ name: 'n~rebuild', position: 1n }]);
        expect(await store.promote({ collection: 'n~rebuild', checkpoint: 'n~rebuild' }, { collection: 'n', checkpoint: 'n' })).to.equal(true);
        expect(await all('n')).to.deep.equal([{ id: 'y', doc: 2, position: 1n }]);
        expect(await store.getCheckpoint('n')).to.equal(1n);
      });

      it('replaces a live model beyond the built one when asked to replace exactly its checkpoint, and only then', async () => {
        await store.commit([{ collection: 'm_v1~rebuild', id: 'c', doc: { new: 'c' }, position: 3n }], [{ name: 'm_v1~rebuild', position: 3n }]);
        // the live checkpoint moved on from what the caller saw: refused, nothing changed
        expect(await store.promote(built, live, { replacing: 4n })).to.equal(false);
        expect(await store.getCheckpoint('m_v1')).to.equal(5n);
        expect(await store.promote(built, live, { replacing: 5n })).to.equal(true);
        expect(await all('m_v1')).to.deep.equal([{ id: 'c', doc: { new: 'c' }, position: 3n }]);
        expect(await store.getCheckpoint('m_v1')).to.equal(3n);
        expect(await store.getCheckpoint('m_v1~rebuild')).to.equal(undefined);
      });

      it('refuses, changing nothing, when the built model is behind the live checkpoint', async () => {
        await store.commit([{ collection: 'm_v1~rebuild', id: 'c', doc: { new: 'c' }, position: 3n }], [{ name: 'm_v1~rebuild', position: 4n }]);
        expect(await store.promote(built, live)).to.equal(false);
        expect(await all('m_v1')).to.deep.equal([
          { id: 'a', doc: { old: 'a' }, position: 2n },
          { id: 'b', doc: { old: 'b' }, position: 4n },
        ]);
        expect(await all('m_v1~rebuild')).to.deep.equal([{ id: 'c', doc: { new: 'c' }, position: 3n }]);
        expect(await store.getCheckpoint('m_v1')).to.equal(5n);
        expect(await store.getCheckpoint('m_v1~rebuild')).to.equal(4n);
      });

      it('refuses to promote a model that has no checkpoint, changing nothing', async () => {
        await store.commit([{ collection: 'm_v1~rebuild', id: 'c', doc: 1, position: 9n }], []);
        const error = await rejectionOf(store.promote(built, live));
        expect((error as Error).message).to.equal('cannot promote m_v1~rebuild: checkpoint m_v1~rebuild does not exist');
        expect((await all('m_v1')).map((d) => d.id)).to.deep.equal(['a', 'b']);
        expect(await store.getCheckpoint('m_v1')).to.equal(5n);
      });
    });

    describe('documents by index key (findByKey)', () => {
      const put = (id: string, sort: string, keys: string[], position = 1n) => ({ collection: 'k', id, doc: { id }, position, index: { keys, sort } });
      const ids = (found: { id: string }[]) => found.map((f) => f.id);

      it('answers the documents of one key in sort-key order, both ways, a page at a time after a cursor and before a bound', async () => {
        await store.commit([put('a', '3:a', ['tag:x', 'all']), put('b', '1:b', ['tag:x', 'all']), put('c', '2:c', ['all']), put('d', '4:d', ['tag:x'])], []);
        expect(ids(await store.findByKey('k', 'tag:x', { limit: 10, descending: true }))).to.deep.equal(['d', 'a', 'b']);
        expect(ids(await store.findByKey('k', 'tag:x', { limit: 10, descending: false }))).to.deep.equal(['b', 'a', 'd']);
        const first = await store.findByKey('k', 'tag:x', { limit: 2, descending: true });
        expect(first.map((f) => f.sort)).to.deep.equal(['4:d', '3:a']);
        expect(first[0]).to.deep.equal({ id: 'd', sort: '4:d', doc: { id: 'd' }, position: 1n });
        expect(ids(await store.findByKey('k', 'tag:x', { limit: 2, descending: true, after: '3:a' }))).to.deep.equal(['b']);
        expect(ids(await store.findByKey('k', 'all', { limit: 10, descending: false, after: '1:b', before: '3:a' }))).to.deep.equal(['c']);
        expect(ids(await store.findByKey('k', 'all', { limit: 10, descending: true, before: '1:b' }))).to.deep.equal(['a', 'c']);
        expect(await store.findByKey('k', 'tag:none', { limit: 10, descending: true })).to.deep.equal([]);
        expect(await store.findByKey('other', 'tag:x', { limit: 10, descending: true })).to.deep.equal([]);
      });

      it("replaces a document's keys and sort key when it is written again, and drops them with it", async () => {
        await store.commit([put('a', '1:a', ['tag:x', 'owner:o'])], []);
        await store.commit([put('a', '9:a', ['tag:y', 'owner:o'], 2n)], []);
        expect(await store.findByKey('k', 'tag:x', { limit: 10, descending: true })).to.deep.equal([]);
        expect((await store.findByKey('k', 'owner:o', { limit: 10, descending: true })).map((f) => f.sort)).to.deep.equal(['9:a']);
        await store.commit([{ collection: 'k', id: 'a', doc: { id: 'a' }, position: 3n }], []);
        expect(await store.findByKey('k', 'owner:o', { limit: 10, descending: true })).to.deep.equal([]);
        await store.commit([put('a', '5:a', ['tag:z'], 4n)], []);
        await store.commit([{ collection: 'k', id: 'a', doc: undefined, position: 5n }], []);
        expect(await store.findByKey('k', 'tag:z', { limit: 10, descending: true })).to.deep.equal([]);
      });

      it('moves the keys with the documents when a rebuilt model is promoted, and forgets them when a collection is dropped', async () => {
        await store.commit([{ ...put('old', '1:old', ['tag:x']), collection: 'm_v1' }], [{ name: 'm_v1', position: 1n }]);
        await store.commit([{ ...put('new', '2:new', ['tag:x']), collection: 'm_v1~rebuild' }], [{ name: 'm_v1~rebuild', position: 5n }]);
        expect(await store.promote({ collection: 'm_v1~rebuild', checkpoint: 'm_v1~rebuild' }, { collection: 'm_v1', checkpoint: 'm_v1' })).to.equal(true);
        expect(ids(await store.findByKey('m_v1', 'tag:x', { limit: 10, descending: true }))).to.deep.equal(['new']);
        expect(await store.findByKey('m_v1~rebuild', 'tag:x', { limit: 10, descending: true })).to.deep.equal([]);
        await store.dropCollection('m_v1');
        expect(await store.findByKey('m_v1', 'tag:x', { limit: 10, descending: true })).to.deep.equal([]);
      });
    });
  });
}
