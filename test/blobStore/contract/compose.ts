import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { BlobNotFound, type BlobSlice, type BlobStore, type ListedBlob } from '../../../src/ports/blobStore.js';
import { bytesOf, piecesOf, rejectionOf } from '../support.js';

const contentOf = async (store: BlobStore, key: string) => bytesOf(await store.read(key));

async function listed(store: BlobStore, prefix: string): Promise<{ key: string; size: number }[]> {
  const blobs: ListedBlob[] = [];
  for await (const blob of store.list(prefix)) blobs.push(blob);
  return blobs.map(({ key, size }) => ({ key, size })).sort((a, b) => (a.key < b.key ? -1 : 1));
}

/** Three chunk blobs of uneven sizes and the item composed of slices of them. */
async function composedItem(store: BlobStore, key = 'items/c') {
  const chunks = [randomBytes(70_001), randomBytes(100_000), randomBytes(33_333)];
  for (const [i, chunk] of chunks.entries()) await store.put(`uploads/u/${i}`, piecesOf(chunk));
  // the whole first chunk, the middle of the second, the head of the third
  const slices: BlobSlice[] = [
    { key: 'uploads/u/0', start: 0, length: 70_001 },
    { key: 'uploads/u/1', start: 10, length: 99_980 },
    { key: 'uploads/u/2', start: 0, length: 33_000 },
  ];
  const whole = Buffer.concat([chunks[0]!, chunks[1]!.subarray(10, 99_990), chunks[2]!.subarray(0, 33_000)]);
  const info = await store.compose!(key, slices);
  return { whole, info, slices };
}

/** For stores that compose (the file store); the others assemble by copying and have none of these. */
export function composeContract(store: () => BlobStore, composes: boolean): void {
  if (!composes) return;
  describe('compose', function () {
    beforeEach(function () {
      expect(store().compose, 'this store composes').to.be.a('function');
    });

    it('makes a blob of the slices, back to back, of the summed size', async function () {
      const { whole, info } = await composedItem(store());
      expect(info).to.deep.equal({ size: 202_981 });
      expect(await store().stat('items/c')).to.deep.equal({ size: 202_981 });
      expect((await contentOf(store(), 'items/c')).equals(whole)).to.equal(true);
    });

    it('reads every kind of range: within a part, across two and three parts, the first and the last byte', async function () {
      const { whole } = await composedItem(store());
      const last = whole.length - 1;
      const ranges = [
        { start: 0, end: 0 },
        { start: 5, end: 69_000 },
        { start: 70_001, end: 169_980 },
        { start: 69_990, end: 70_010 },
        { start: 70_000, end: 170_981 },
        { start: 100, end: last },
        { start: 170_981, end: last },
        { start: last, end: last },
      ];
      for (const range of ranges) {
        const bytes = await bytesOf(await store().read('items/c', range));
        expect(bytes.equals(whole.subarray(range.start, range.end + 1)), `${range.start}-${range.end}`).to.equal(true);
      }
      expect(await rejectionOf(store().read('items/c', { start: 0, end: whole.length }))).to.be.instanceOf(RangeError);
    });

    it('opens for reads at any position, a read across parts giving what is left of its part', async function () {
      const s = store();
      expect(s.open, 'a store that composes opens blobs for reads at a position').to.be.a('function');
      const { whole } = await composedItem(s);
      const blob = await s.open!('items/c');
      try {
        expect(blob.size).to.equal(whole.length);
        const into = Buffer.alloc(200_000);
        // from inside the first part: up to its end
        expect(await blob.read(into, 69_000)).to.equal(1_001);
        expect(into.subarray(0, 1_001).equals(whole.subarray(69_000, 70_001))).to.equal(true);
        // read on from there, as a reader of the whole does
        const read: Buffer[] = [];
        for (let at = 0; at < whole.length;) {
          const n = await blob.read(into, at);
          expect(n).to.be.greaterThan(0);
          read.push(Buffer.from(into.subarray(0, n)));
          at += n;
        }
        expect(Buffer.concat(read).equals(whole)).to.equal(true);
        expect(await blob.read(into, whole.length)).to.equal(0);
      } finally {
        await blob.close();
      }
    });

    it('keeps its bytes when the blobs it was composed of are deleted', async function () {
      const { whole } = await composedItem(store());
      await store().delete('uploads/u/1');
      await store().deletePrefix('uploads/u');
      expect(await store().stat('uploads/u/0')).to.equal(undefined);
      expect((await contentOf(store(), 'items/c')).equals(whole)).to.equal(true);
      expect(await store().stat('items/c')).to.deep.equal({ size: whole.length });
    });

    it('lists as one blob of its size, none of its parts', async function () {
      const { whole } = await composedItem(store());
      await store().put('items/d', piecesOf(Buffer.from('plain')));
      expect(await listed(store(), 'items')).to.deep.equal([
        { key: 'items/c', size: whole.length },
        { key: 'items/d', size: 5 },
      ]);
    });

    it('moves as one blob, to a new key and over a plain blob, and a plain blob moves over it', async function () {
      const { whole } = await composedItem(store());
      await store().move('items/c', 'items/moved');
      expect(await store().stat('items/c')).to.equal(undefined);
      expect((await contentOf(store(), 'items/moved')).equals(whole)).to.equal(true);

      await store().put('items/plain', piecesOf(Buffer.from('plain')));
      await store().move('items/moved', 'items/plain');
      expect((await contentOf(store(), 'items/plain')).equals(whole)).to.equal(true);

      await store().put('uploads/v/0', piecesOf(Buffer.from('back to plain')));
      await store().move('uploads/v/0', 'items/plain');
      expect((await contentOf(store(), 'items/plain')).toString()).to.equal('back to plain');
      expect(await listed(store(), 'items')).to.deep.equal([{ key: 'items/plain', size: 13 }]);
    });

    it('is deleted as one blob, idempotently, and deletePrefix of its own key leaves it', async function () {
      const { whole } = await composedItem(store());
      await store().deletePrefix('items/c');
      expect(await store().stat('items/c')).to.deep.equal({ size: whole.length });
      await store().delete('items/c');
      await store().delete('items/c');
      expect(await store().stat('items/c')).to.equal(undefined);
      expect(await rejectionOf(store().read('items/c'))).to.be.instanceOf(BlobNotFound);
      expect(await listed(store(), 'items')).to.deep.equal([]);
      // its sources are untouched
      expect(await store().stat('uploads/u/1')).to.deep.equal({ size: 100_000 });
    });

    it('is deleted by several calls at once, each resolving', async function () {
      await composedItem(store());
      await Promise.all(Array.from({ length: 8 }, () => store().delete('items/c')));
      expect(await store().stat('items/c')).to.equal(undefined);
    });

    it('is removed with its prefix by deletePrefix', async function () {
      await composedItem(store(), 'items/sub/c');
      await store().deletePrefix('items/sub');
      expect(await store().stat('items/sub/c')).to.equal(undefined);
    });

    it('replaces a plain blob under its key, and a plain blob written under its key replaces it', async function () {
      await store().put('items/c', piecesOf(Buffer.from('old')));
      const { whole } = await composedItem(store());
      expect((await contentOf(store(), 'items/c')).equals(whole)).to.equal(true);
      await store().put('items/c', piecesOf(Buffer.from('new')));
      expect((await contentOf(store(), 'items/c')).toString()).to.equal('new');
      // and a composed blob again over a composed one
      await composedItem(store());
      const again = await composedItem(store());
      expect((await contentOf(store(), 'items/c')).equals(again.whole)).to.equal(true);
    });

    it('composes slices of a composed blob, and truncates one without touching its sources', async function () {
      const { whole } = await composedItem(store());
      await store().compose!('items/e', [
        { key: 'items/c', start: 70_000, length: 2 },
        { key: 'uploads/u/2', start: 33_000, length: 333 },
      ]);
      const chunk2 = await contentOf(store(), 'uploads/u/2');
      expect((await contentOf(store(), 'items/e')).equals(Buffer.concat([whole.subarray(70_000, 70_002), chunk2.subarray(33_000)]))).to.equal(true);
      await store().truncate('items/c', 70_005);
      expect((await contentOf(store(), 'items/c')).equals(whole.subarray(0, 70_005))).to.equal(true);
      expect(await store().stat('uploads/u/1')).to.deep.equal({ size: 100_000 });
    });

    it('rejects an absent source with BlobNotFound and a slice outside its blob with RangeError, leaving the key as it was', async function () {
      await store().put('uploads/u/0', piecesOf(randomBytes(10)));
      const absent = await rejectionOf(
        store().compose!('items/c', [
          { key: 'uploads/u/0', start: 0, length: 10 },
          { key: 'uploads/u/9', start: 0, length: 1 },
        ]),
      );
      expect(absent).to.be.instanceOf(BlobNotFound);
      expect(await rejectionOf(store().compose!('items/c', [{ key: 'uploads/u/0', start: 5, length: 6 }]))).to.be.instanceOf(RangeError);
      expect(await store().stat('items/c')).to.equal(undefined);
    });

    it('refuses writeAt into it', async function () {
      const { whole } = await composedItem(store());
      expect(await rejectionOf(store().writeAt('items/c', 0, piecesOf(Buffer.from('x'))))).to.be.instanceOf(Error);
      expect((await contentOf(store(), 'items/c')).equals(whole)).to.equal(true);
    });
  });
}
