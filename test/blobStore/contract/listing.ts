import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { BlobStore, ListedBlob } from '../../../src/ports/blobStore.js';
import { piecesOf } from '../support.js';

async function listed(store: BlobStore, prefix: string): Promise<ListedBlob[]> {
  const blobs: ListedBlob[] = [];
  for await (const blob of store.list(prefix)) blobs.push(blob);
  return blobs.sort((a, b) => (a.key < b.key ? -1 : 1));
}

const keysAndSizes = (blobs: ListedBlob[]) => blobs.map(({ key, size }) => ({ key, size }));

/** the clocks of a file system and of the process may round differently: a second either side */
const CLOCK_SLACK_MS = 1000;

export function listingContract(store: () => BlobStore): void {
  describe('list', function () {
    it('lists every blob under a prefix, at any depth, with its size, and nothing outside it', async function () {
      const s = store();
      await s.put('items/a', piecesOf(randomBytes(3)));
      await s.put('items/b', piecesOf(randomBytes(5)));
      await s.writeAt('uploads/u1/data', 10, piecesOf(randomBytes(7)));
      await s.put('uploads/u2/0', piecesOf(randomBytes(1)));
      await s.put('itemsx/c', piecesOf(randomBytes(1)));
      expect(keysAndSizes(await listed(s, 'items'))).to.deep.equal([
        { key: 'items/a', size: 3 },
        { key: 'items/b', size: 5 },
      ]);
      expect(keysAndSizes(await listed(s, 'uploads'))).to.deep.equal([
        { key: 'uploads/u1/data', size: 17 },
        { key: 'uploads/u2/0', size: 1 },
      ]);
      expect(keysAndSizes(await listed(s, 'uploads/u1'))).to.deep.equal([{ key: 'uploads/u1/data', size: 17 }]);
      expect(await listed(s, 'nothing')).to.deep.equal([]);
    });

    it('lists each of many blobs once', async function () {
      const s = store();
      const keys = Array.from({ length: 300 }, (_, i) => `items/k${String(i).padStart(3, '0')}`);
      for (const key of keys) await s.put(key, piecesOf(randomBytes(1)));
      expect((await listed(s, 'items')).map((b) => b.key)).to.deep.equal(keys);
    });

    it('leaves out what was deleted, one blob or a whole prefix', async function () {
      const s = store();
      await s.put('items/a', piecesOf(randomBytes(1)));
      await s.put('items/b', piecesOf(randomBytes(1)));
      await s.writeAt('uploads/u1/data', 0, piecesOf(randomBytes(1)));
      await s.delete('items/a');
      await s.deletePrefix('uploads/u1');
      expect((await listed(s, 'items')).map((b) => b.key)).to.deep.equal(['items/b']);
      expect(await listed(s, 'uploads')).to.deep.equal([]);
    });

    it('tells when each blob last changed under its key: written, moved there, cut', async function () {
      const s = store();
      const before = Date.now();
      await s.put('items/a', piecesOf(randomBytes(4)));
      await s.writeAt('uploads/u1/data', 0, piecesOf(randomBytes(4)));
      const after = Date.now();
      for (const blob of [...(await listed(s, 'items')), ...(await listed(s, 'uploads'))]) {
        expect(blob.modifiedAt, blob.key).to.be.within(before - CLOCK_SLACK_MS, after + CLOCK_SLACK_MS);
      }
      const beforeMove = Date.now();
      await s.move('uploads/u1/data', 'items/b');
      await s.truncate('items/a', 2);
      const moved = await listed(s, 'items');
      expect(keysAndSizes(moved)).to.deep.equal([
        { key: 'items/a', size: 2 },
        { key: 'items/b', size: 4 },
      ]);
      for (const blob of moved) expect(blob.modifiedAt, blob.key).to.be.at.least(beforeMove - CLOCK_SLACK_MS);
    });

    it('refuses an invalid prefix with a TypeError', function () {
      for (const prefix of ['../x', '', 'a/']) expect(() => store().list(prefix), prefix).to.throw(TypeError, `invalid blob key: ${JSON.stringify(prefix)}`);
    });
  });
}
