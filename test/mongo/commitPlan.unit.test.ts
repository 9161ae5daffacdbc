import { expect } from 'chai';
import { checkpointOps, documentOps, normalizeDocument, planDocuments } from '../../src/adapters/mongo/commitPlan.js';
import { documentsCollectionName } from '../../src/adapters/mongo/readModelNames.js';
import { CheckpointConflict } from '../../src/ports/readStore.js';

const stored = (entries: Record<string, bigint>) => new Map(Object.entries(entries));

describe('MongoDB read store commits', function () {
  describe('documents', function () {
    it('writes a document over an older stored position, or where none is stored', function () {
      const planned = planDocuments([
        { collection: 'c', id: 'new', doc: { n: 1 }, position: 7n },
        { collection: 'c', id: 'older', doc: { n: 2 }, position: 7n },
      ]).get('c')!;
      expect(documentOps(planned, stored({ older: 6n }))).to.deep.equal([
        { replaceOne: { filter: { _id: 'new', position: { $lt: 7n } }, replacement: { position: 7n, live: true, doc: { n: 1 } }, upsert: true } },
        { replaceOne: { filter: { _id: 'older', position: { $lt: 7n } }, replacement: { position: 7n, live: true, doc: { n: 2 } }, upsert: true } },
      ]);
    });

    it('writes nothing over a document as new or newer, a tombstone included (a replay changes nothing)', function () {
      const planned = planDocuments([
        { collection: 'c', id: 'same', doc: 1, position: 5n },
        { collection: 'c', id: 'deletedLater', doc: 2, position: 3n },
      ]).get('c')!;
      expect(documentOps(planned, stored({ same: 5n, deletedLater: 4n }))).to.deep.equal([]);
    });

    it('deletes by a tombstone that keeps the position of the deletion', function () {
      const planned = planDocuments([{ collection: 'c', id: 'a', doc: undefined, position: 9n }]).get('c')!;
      expect(documentOps(planned, stored({ a: 2n }))).to.deep.equal([
        { replaceOne: { filter: { _id: 'a', position: { $lt: 9n } }, replacement: { position: 9n, live: false }, upsert: true } },
      ]);
    });

    it('groups writes by collection and keeps the newest write of each document', function () {
      const planned = planDocuments([
        { collection: 'c1', id: 'a', doc: 1, position: 5n },
        { collection: 'c2', id: 'a', doc: 2, position: 1n },
        { collection: 'c1', id: 'a', doc: 3, position: 3n },
        { collection: 'c1', id: 'b', doc: 4, position: 2n },
        { collection: 'c1', id: 'b', doc: 5, position: 2n },
      ]);
      expect([...planned.keys()]).to.deep.equal(['c1', 'c2']);
      expect(planned.get('c1')!.map((d) => d.replacement.doc)).to.deep.equal([1, 5]);
    });

    it('refuses a position beyond int64 before anything is written', function () {
      expect(() => planDocuments([{ collection: 'c', id: 'a', doc: {}, position: 2n ** 64n }])).to.throw(RangeError);
      expect(() => checkpointOps([{ name: 'p', position: -(2n ** 70n) }], stored({}))).to.throw(RangeError);
    });

    it('stores documents as JSON reads them back, like the SQLite store', function () {
      const date = new Date(0);
      expect(normalizeDocument({ a: undefined, b: [1, undefined], c: date, d: Number.NaN, e: null })).to.deep.equal({
        b: [1, null],
        c: date.toJSON(),
        d: null,
        e: null,
      });
      expect(normalizeDocument(2)).to.equal(2);
      expect(() => normalizeDocument(() => 1)).to.throw(TypeError);
      expect(() => normalizeDocument({ big: 1n })).to.throw(TypeError);
    });
  });

  describe('checkpoints', function () {
    it('moves a checkpoint written without expectation only forward', function () {
      expect(checkpointOps([{ name: 'p', position: 5n }], stored({ p: 9n }))).to.deep.equal([]);
      expect(
        checkpointOps(
          [
            { name: 'p', position: 9n },
            { name: 'p', position: 7n },
          ],
          stored({ p: 5n }),
        ),
      ).to.deep.equal([{ replaceOne: { filter: { _id: 'p' }, replacement: { position: 9n }, upsert: true } }]);
    });

    it('writes the position given when the expected checkpoint holds, null meaning absent', function () {
      expect(checkpointOps([{ name: 'p', position: 3n, expected: null }], stored({}))).to.deep.equal([
        { replaceOne: { filter: { _id: 'p' }, replacement: { position: 3n }, upsert: true } },
      ]);
      expect(checkpointOps([{ name: 'p', position: 8n, expected: 3n }], stored({ p: 3n }))).to.deep.equal([
        { replaceOne: { filter: { _id: 'p' }, replacement: { position: 8n }, upsert: true } },
      ]);
    });

    it('refuses the whole commit when an expectation does not hold, naming it', function () {
      const refuse = (checkpoints: Parameters<typeof checkpointOps>[0], now: Record<string, bigint>) => {
        try {
          checkpointOps(checkpoints, stored(now));
        } catch (error) {
          return error;
        }
        throw new Error('expected a CheckpointConflict');
      };
      expect(
        refuse(
          [
            { name: 'q', position: 9n },
            { name: 'p', position: 9n, expected: 4n },
          ],
          { p: 5n },
        ),
      )
        .to.be.instanceOf(CheckpointConflict)
        .and.include({ checkpoint: 'p', expected: 4n, actual: 5n });
      expect(refuse([{ name: 'p', position: 6n, expected: null }], { p: 5n })).to.include({ expected: null, actual: 5n });
      expect(refuse([{ name: 'absent', position: 6n, expected: 5n }], {})).to.include({ expected: 5n, actual: undefined });
    });
  });
});

describe('MongoDB read model collection names', function () {
  const generation = '0123456789abcdef01234567';

  it('keeps projection names readable, between a prefix and the generation', function () {
    expect(documentsCollectionName('upload_service', 'uploads_v1', generation)).to.equal(`docs.uploads_v1.${generation}`);
  });

  it('encodes what MongoDB refuses in a name, one-to-one', function () {
    const names = ['a$b', 'a.b', 'a%2Eb', 'a\u0000b', '', 'system.x', 'é', 'm_v1~rebuild'];
    const mapped = names.map((n) => documentsCollectionName('db', n, generation));
    expect(new Set(mapped).size).to.equal(names.length);
    for (const m of mapped) expect(m).to.match(new RegExp(`^docs\\.[A-Za-z0-9_%!~*'()-]*\\.${generation}$`));
  });

  it('refuses a name too long for a MongoDB namespace', function () {
    expect(() => documentsCollectionName('db', 'x'.repeat(230), generation)).to.throw(RangeError);
    expect(documentsCollectionName('db', 'x'.repeat(220), generation)).to.have.length(250);
  });
});
