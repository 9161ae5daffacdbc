import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { BlobNotFound, type BlobStore } from '../../../src/ports/blobStore.js';
import { MiB, bytesOf, piecesOf, randomChunks, rejectionOf, sha256Of } from '../support.js';

export function readWriteContract(store: () => BlobStore): void {
  describe('put and read', function () {
    for (const size of [0, 1, MiB + 7]) {
      it(`reads back exactly the ${size} random bytes it stored`, async function () {
        const bytes = randomBytes(size);
        expect(await store().put('items/blob', piecesOf(bytes))).to.deep.equal({ size });
        expect(await store().stat('items/blob')).to.deep.equal({ size });
        expect((await bytesOf(await store().read('items/blob'))).equals(bytes)).to.equal(true);
      });
    }

    it('streams a 64 MiB blob in 1 MiB chunks and reads back the same sha256', async function () {
      const source = randomChunks(64, MiB);
      expect(await store().put('items/big', source.chunks)).to.deep.equal({ size: 64 * MiB });
      expect(await sha256Of(await store().read('items/big'))).to.equal(source.sha256());
    });

    it('answers undefined to stat of a missing blob', async function () {
      expect(await store().stat('items/missing')).to.equal(undefined);
    });

    it('rejects a read of a missing blob with BlobNotFound naming the key', async function () {
      const error = await rejectionOf(store().read('items/missing'));
      expect(error).to.be.instanceOf(BlobNotFound);
      expect((error as BlobNotFound).key).to.equal('items/missing');
    });

    it('treats a key that is only a prefix of other blobs as missing', async function () {
      await store().put('uploads/u1/0', piecesOf(randomBytes(3)));
      expect(await store().stat('uploads/u1')).to.equal(undefined);
      expect(await rejectionOf(store().read('uploads/u1'))).to.be.instanceOf(BlobNotFound);
    });
  });

  describe('ranged read', function () {
    const size = 4096 + 5;
    let bytes: Buffer;
    beforeEach(async function () {
      bytes = randomBytes(size);
      await store().put('items/ranged', piecesOf(bytes, 1000));
    });

    const ranges = {
      'the first byte': { start: 0, end: 0 },
      'the last byte': { start: size - 1, end: size - 1 },
      'a middle span': { start: 100, end: 2999 },
      'the whole blob': { start: 0, end: size - 1 },
    };
    for (const [label, range] of Object.entries(ranges)) {
      it(`reads ${label} (${range.start}-${range.end}, end inclusive)`, async function () {
        const read = await bytesOf(await store().read('items/ranged', range));
        expect(read.equals(bytes.subarray(range.start, range.end + 1))).to.equal(true);
      });
    }

    const outside = [
      { start: 0, end: size },
      { start: size, end: size },
      { start: -1, end: 0 },
      { start: 5, end: 4 },
      { start: 0.5, end: 3 },
    ];
    for (const range of outside) {
      it(`rejects the range ${range.start}-${range.end} with a RangeError`, async function () {
        expect(await rejectionOf(store().read('items/ranged', range))).to.be.instanceOf(RangeError);
      });
    }

    it('rejects any range of an empty blob with a RangeError', async function () {
      await store().put('items/empty', piecesOf(new Uint8Array(0)));
      const error = await rejectionOf(store().read('items/empty', { start: 0, end: 0 }));
      expect(error).to.be.instanceOf(RangeError);
    });

    it('rejects a ranged read of a missing blob with BlobNotFound', async function () {
      const error = await rejectionOf(store().read('items/missing', { start: 0, end: 0 }));
      expect(error).to.be.instanceOf(BlobNotFound);
    });
  });
}
