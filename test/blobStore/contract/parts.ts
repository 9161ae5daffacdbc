import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { BlobNotFound, type BlobStore } from '../../../src/ports/blobStore.js';
import { bytesOf, piecesOf } from '../support.js';

const contentOf = async (store: BlobStore, key: string) => bytesOf(await store.read(key));

export function partsContract(store: () => BlobStore): void {
  describe('writeAt', function () {
    it('assembles a blob from parts written in any order and at once', async function () {
      const whole = randomBytes(3 * 70_000 + 11);
      const offsets = [140_000, 0, 210_000, 70_000];
      const results = await Promise.all(
        offsets.map((o) => store().writeAt('uploads/u/data', o, piecesOf(whole.subarray(o, Math.min(o + 70_000, whole.length))))),
      );
      expect(results.map((r) => r.bytesWritten)).to.deep.equal([70_000, 70_000, 11, 70_000]);
      expect(Buffer.compare(await contentOf(store(), 'uploads/u/data'), whole)).to.equal(0);
      expect(await store().stat('uploads/u/data')).to.deep.equal({ size: whole.length });
    });

    it('overwrites a part written again at the same offset', async function () {
      await store().writeAt('uploads/u/data', 0, piecesOf(Buffer.from('aaaa')));
      await store().writeAt('uploads/u/data', 4, piecesOf(Buffer.from('bbbb')));
      await store().writeAt('uploads/u/data', 0, piecesOf(Buffer.from('cc')));
      expect((await contentOf(store(), 'uploads/u/data')).toString()).to.equal('ccaabbbb');
    });

    it('refuses a negative or fractional offset and an invalid key', async function () {
      for (const offset of [-1, 1.5]) {
        let failure: unknown;
        await store()
          .writeAt('uploads/u/data', offset, piecesOf(Buffer.from('x')))
          .catch((e) => (failure = e));
        expect(failure).to.be.instanceOf(RangeError);
      }
      let failure: unknown;
      await store()
        .writeAt('../x', 0, piecesOf(Buffer.from('x')))
        .catch((e) => (failure = e));
      expect(failure).to.be.instanceOf(TypeError);
    });
  });

  describe('truncate', function () {
    it('cuts a blob to a size, to none of its bytes too, and leaves a blob no longer than the size as it is', async function () {
      const bytes = randomBytes(70_011);
      await store().put('items/long', piecesOf(bytes));
      await store().put('items/short', piecesOf(Buffer.from('short')));
      await store().truncate('items/long', 1_000);
      await store().truncate('items/short', 10);
      expect(Buffer.compare(await contentOf(store(), 'items/long'), bytes.subarray(0, 1_000))).to.equal(0);
      expect((await contentOf(store(), 'items/short')).toString()).to.equal('short');
      await store().truncate('items/long', 0);
      await store().truncate('items/short', 0);
      for (const key of ['items/long', 'items/short']) {
        expect(await store().stat(key)).to.deep.equal({ size: 0 });
        expect((await contentOf(store(), key)).length).to.equal(0);
      }
    });

    it('rejects with BlobNotFound when the blob is absent', async function () {
      let failure: unknown;
      await store()
        .truncate('items/none', 0)
        .catch((e) => (failure = e));
      expect(failure).to.be.instanceOf(BlobNotFound);
    });
  });

  describe('move', function () {
    it('renames a blob, replacing what was at the target', async function () {
      await store().put('items/a', piecesOf(Buffer.from('old')));
      await store().writeAt('uploads/u/data', 0, piecesOf(Buffer.from('new bytes')));
      await store().move('uploads/u/data', 'items/a');
      expect((await contentOf(store(), 'items/a')).toString()).to.equal('new bytes');
      expect(await store().stat('uploads/u/data')).to.equal(undefined);
    });

    it('rejects with BlobNotFound when the source is absent', async function () {
      let failure: unknown;
      await store()
        .move('uploads/none/data', 'items/b')
        .catch((e) => (failure = e));
      expect(failure).to.be.instanceOf(BlobNotFound);
    });
  });
}
