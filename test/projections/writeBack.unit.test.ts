import { expect } from 'chai';
import { CheckpointConflict, type CheckpointWrite, type DocumentWrite, type ReadStore } from '../../src/ports/readStore.js';
import { openSqliteReadStore } from '../../src/adapters/sqlite/readStore.js';
import { WriteBack } from '../../projections/writeBack.js';
import { WrittenIds } from '../../projections/writtenIds.js';
import { rebuild } from '../../projections/rebuild.js';
import { allProjections } from '../../projections/index.js';
import { appendUploads, documentsOf, freshReadModels, readModelsOf, sqliteStoresEach } from './readModels.js';

/** the read store, counting the commits that reach it */
function counting(store: ReadStore) {
  const commits: { writes: readonly DocumentWrite[]; checkpoints: readonly CheckpointWrite[] }[] = [];
  const wrapped: Pick<ReadStore, 'getMany' | 'commit'> = {
    getMany: (collection, ids) => store.getMany(collection, ids),
    commit: async (writes, checkpoints) => {
      commits.push({ writes, checkpoints });
      await store.commit(writes, checkpoints);
    },
  };
  return { wrapped, commits };
}

describe("a rebuild's documents held in memory between flushes (WriteBack)", () => {
  let store: ReadStore;
  beforeEach(() => {
    store = openSqliteReadStore({ path: ':memory:' });
  });
  afterEach(() => store.close());

  it('answers held documents (and held deletions) before the store, and writes nothing until flushed', async () => {
    await store.commit(
      [
        { collection: 'c', id: 'kept', doc: { v: 0 }, position: 1n },
        { collection: 'c', id: 'gone', doc: { v: 0 }, position: 1n },
      ],
      [],
    );
    const { wrapped, commits } = counting(store);
    const held = new WriteBack(wrapped);
    await held.commit(
      [
        { collection: 'c', id: 'new', doc: { v: 1 }, position: 2n },
        { collection: 'c', id: 'gone', doc: undefined, position: 2n },
      ],
      [{ name: 'c_v1', position: 2n, expected: null }],
    );
    const read = await held.getMany<{ v: number }>('c', ['kept', 'gone', 'new', 'absent']);
    expect(Object.fromEntries(read)).to.deep.equal({ kept: { doc: { v: 0 }, position: 1n }, new: { doc: { v: 1 }, position: 2n } });
    expect(held.size).to.equal(2);
    expect(commits).to.have.length(0);

    await held.commit([{ collection: 'c', id: 'new', doc: { v: 2 }, position: 3n }], [{ name: 'c_v1', position: 3n, expected: 2n }]);
    await held.flush();
    expect(commits).to.have.length(1);
    expect(commits[0]!.checkpoints).to.deep.equal([{ name: 'c_v1', position: 3n, expected: null }]);
    expect(await documentsOf(store, 'c')).to.deep.equal([
      { id: 'kept', doc: { v: 0 }, position: 1n },
      { id: 'new', doc: { v: 2 }, position: 3n },
    ]);
    expect(await store.getCheckpoint('c_v1')).to.equal(3n);
    expect(held.size).to.equal(0);
  });

  it('refuses a commit whose expected checkpoint is not the one it holds, and a flush over a checkpoint another writer moved', async () => {
    const held = new WriteBack(store);
    await held.commit([], [{ name: 'c_v1', position: 5n, expected: null }]);
    let refused: unknown;
    await held.commit([], [{ name: 'c_v1', position: 6n, expected: 4n }]).catch((e: unknown) => (refused = e));
    expect(CheckpointConflict.is(refused)).to.equal(true);

    // another rebuild of the same projection wrote its checkpoint meanwhile
    await store.commit([], [{ name: 'c_v1', position: 9n }]);
    refused = undefined;
    await held.flush().catch((e: unknown) => (refused = e));
    expect(CheckpointConflict.is(refused)).to.equal(true);
    expect(await store.getCheckpoint('c_v1')).to.equal(9n);
  });

  it('does not read from the store the ids it never wrote to a collection it was given as emptied, and reads back those it flushed', async () => {
    const asked: string[] = [];
    const held = new WriteBack(
      {
        getMany: (collection, ids) => (asked.push(...ids), store.getMany(collection, ids)),
        commit: (writes, checkpoints) => store.commit(writes, checkpoints),
      },
      new Map([['fresh', new WrittenIds()]]),
    );
    await held.commit(
      [
        { collection: 'fresh', id: 'a', doc: { v: 1 }, position: 1n },
        { collection: 'fresh', id: 'b', doc: { v: 1 }, position: 1n },
        { collection: 'other', id: 'a', doc: { v: 1 }, position: 1n },
      ],
      [],
    );
    await held.commit([{ collection: 'fresh', id: 'b', doc: undefined, position: 2n }], []);
    await held.flush();
    const fresh = await held.getMany<{ v: number }>('fresh', ['a', 'b', 'never']);
    expect(Object.fromEntries(fresh)).to.deep.equal({ a: { doc: { v: 1 }, position: 1n } });
    // 'b' was deleted before it reached the store, 'never' was never written: neither is asked for
    expect(asked).to.deep.equal(['a']);
    await held.getMany('other', ['a', 'never']);
    expect(asked).to.deep.equal(['a', 'a', 'never']);
  });

  it('writes a flush in id order within each collection', async () => {
    const { wrapped, commits } = counting(store);
    const held = new WriteBack(wrapped);
    const ids = ['m', 'b', 'z', 'a'];
    await held.commit(
      ids.flatMap((id) => [
        { collection: 'y', id, doc: { id }, position: 1n },
        { collection: 'x', id, doc: { id }, position: 1n },
      ]),
      [],
    );
    await held.flush();
    expect(commits[0]!.writes.map((w) => `${w.collection}/${w.id}`)).to.deep.equal(['y/a', 'y/b', 'y/m', 'y/z', 'x/a', 'x/b', 'x/m', 'x/z']);
  });

  describe('in a rebuild', () => {
    const stores = sqliteStoresEach('writeback-');

    it('builds the same read models whether it flushes after every batch or once, writing a document changed by many batches once', async () => {
      await appendUploads(stores.events, 1, 30);
      const fresh = await freshReadModels(stores.events, allProjections);
      const written: Record<number, number> = {};
      for (const maxHeldDocuments of [1, 7, 100_000]) {
        // the store, counting the documents written to it
        const reads: ReadStore = Object.create(stores.reads) as ReadStore;
        written[maxHeldDocuments] = 0;
        reads.commit = (writes, checkpoints) => {
          written[maxHeldDocuments]! += writes.length;
          return stores.reads.commit(writes, checkpoints);
        };
        await rebuild({ eventStore: stores.events, readStore: reads, projections: allProjections, batchSize: 5, maxHeldDocuments });
        expect(await readModelsOf(stores.reads, allProjections), `holding ${maxHeldDocuments}`).to.deep.equal(fresh);
      }
      // held across every batch, a document changed by several batches is written once
      expect(written[100_000]).to.be.below(written[1]!);
    });
  });
});
