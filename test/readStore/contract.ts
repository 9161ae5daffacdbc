import { expect } from 'chai';
import type { ReadStore } from '../../src/ports/readStore.js';

/** One suite for every read store adapter (SQLite now, MongoDB when MONGO_URL is set). */
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
  });
}
