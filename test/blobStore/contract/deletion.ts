import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { BlobStore } from '../../../src/ports/blobStore.js';
import { piecesOf } from '../support.js';

export function deletionContract(store: () => BlobStore): void {
  const putSome = (key: string) => store().put(key, piecesOf(randomBytes(3)));
  const present = async (keys: string[]) => {
    const found: string[] = [];
    for (const key of keys) if ((await store().stat(key)) !== undefined) found.push(key);
    return found;
  };

  describe('delete', function () {
    it('removes a blob, and accepts deleting it again', async function () {
      await putSome('items/x');
      await putSome('items/y');
      await store().delete('items/x');
      await store().delete('items/x');
      expect(await present(['items/x', 'items/y'])).to.deep.equal(['items/y']);
    });

    it('accepts deleting a blob that never existed', async function () {
      await store().delete('items/never');
      expect(await store().stat('items/never')).to.equal(undefined);
    });

    it('does not delete the blobs under a key that is only a prefix', async function () {
      await putSome('uploads/u1/0');
      await store().delete('uploads/u1');
      expect(await present(['uploads/u1/0'])).to.deep.equal(['uploads/u1/0']);
    });
  });

  describe('deletePrefix', function () {
    const keys = ['uploads/u1/0', 'uploads/u1/10', 'uploads/u10/0', 'uploads/u2/0', 'items/u1'];

    it('removes every blob under prefix/ and nothing else', async function () {
      for (const key of keys) await putSome(key);
      await store().deletePrefix('uploads/u1');
      expect(await present(keys)).to.deep.equal(['uploads/u10/0', 'uploads/u2/0', 'items/u1']);
    });

    it('accepts being repeated, and a prefix that never existed', async function () {
      for (const key of keys) await putSome(key);
      await store().deletePrefix('uploads/u1');
      await store().deletePrefix('uploads/u1');
      await store().deletePrefix('uploads/never');
      expect(await present(keys)).to.deep.equal(['uploads/u10/0', 'uploads/u2/0', 'items/u1']);
    });

    it('keeps a blob named exactly like the prefix (it is not under prefix/)', async function () {
      for (const key of keys) await putSome(key);
      await store().deletePrefix('items/u1');
      expect(await present(keys)).to.deep.equal(keys);
    });

    it('lets new blobs be written under the prefix afterwards', async function () {
      await putSome('uploads/u1/0');
      await store().deletePrefix('uploads/u1');
      await putSome('uploads/u1/5');
      expect(await present(['uploads/u1/0', 'uploads/u1/5'])).to.deep.equal(['uploads/u1/5']);
    });
  });
}
