import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openFsBlobStore } from '../../src/adapters/fs/blobStore.js';
import { diskFault } from '../../src/adapters/fs/diskFaults.js';
import { BlobStoreUnavailable, type BlobStore } from '../../src/ports/blobStore.js';
import { canMountTmpfs, mountTmpfs, tmpfsNotRunMessage, type Tmpfs } from '../support/tmpfs.js';
import { bytesOf, MiB, piecesOf, rejectionOf } from './support.js';

const causeCodeOf = (error: unknown) => ((error as Error).cause as NodeJS.ErrnoException | undefined)?.code;

describe('fs blob store on a disk that refuses writes', function () {
  it('answers BlobStoreUnavailable, the ENOSPC as its cause, when a part cannot be written (a device that is always full)', async function () {
    const root = await mkdtemp(join(tmpdir(), 'blobstore-full-'));
    const store = await openFsBlobStore({ root });
    try {
      // /dev/full answers every write with ENOSPC, as a full disk does; no root needed
      await mkdir(join(root, 'uploads', 'u1'), { recursive: true });
      await symlink('/dev/full', join(root, 'uploads', 'u1', 'data'));
      const error = await rejectionOf(store.writeAt('uploads/u1/data', 0, piecesOf(randomBytes(1000))));
      expect(error).to.be.instanceOf(BlobStoreUnavailable);
      expect(causeCodeOf(error)).to.equal('ENOSPC');
    } finally {
      await store.close();
      await rm(root, { recursive: true, force: true });
    }
  });

  it('keeps every other error as it is (a missing file, a permission)', function () {
    const absent = Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
    const denied = Object.assign(new Error('EACCES'), { code: 'EACCES' });
    expect(diskFault(absent)).to.equal(absent);
    expect(diskFault(denied)).to.equal(denied);
    for (const code of ['ENOSPC', 'EDQUOT', 'EROFS', 'EIO']) {
      expect(diskFault(Object.assign(new Error(code), { code }))).to.be.instanceOf(BlobStoreUnavailable);
    }
  });

  if (canMountTmpfs) {
    describe('on a real 1 MiB tmpfs', function () {
      let fs: Tmpfs;
      let store: BlobStore;
      beforeEach(async function () {
        fs = mountTmpfs(MiB);
        store = await openFsBlobStore({ root: join(fs.dir, 'blobs') });
      });
      afterEach(async function () {
        await store.close();
        fs.remove();
      });

      it('answers BlobStoreUnavailable (ENOSPC) when the disk fills, leaves no temp file, and takes the blob once space is back', async function () {
        const bytes = randomBytes(2 * MiB);
        const error = await rejectionOf(store.put('items/big', piecesOf(bytes)));
        expect(error).to.be.instanceOf(BlobStoreUnavailable);
        expect(causeCodeOf(error)).to.equal('ENOSPC');
        expect(await readdir(join(fs.dir, 'blobs', '.tmp'))).to.deep.equal([]);
        expect(await store.stat('items/big')).to.equal(undefined);

        const part = await rejectionOf(store.writeAt('uploads/u1/data', 0, piecesOf(bytes)));
        expect(part).to.be.instanceOf(BlobStoreUnavailable);

        fs.remount(`size=${8 * MiB}`);
        await store.put('items/big', piecesOf(bytes));
        expect((await bytesOf(await store.read('items/big'))).equals(bytes)).to.equal(true);
      });

      it('answers BlobStoreUnavailable (EROFS) on a disk remounted read-only, and writes again once it is writable', async function () {
        await store.put('items/a', piecesOf(randomBytes(10)));
        fs.remount('ro');
        const error = await rejectionOf(store.createWriter());
        expect(error).to.be.instanceOf(BlobStoreUnavailable);
        expect(causeCodeOf(error)).to.equal('EROFS');
        expect(await rejectionOf(store.move('items/a', 'items/b'))).to.be.instanceOf(BlobStoreUnavailable);
        expect(await rejectionOf(store.delete('items/a'))).to.be.instanceOf(BlobStoreUnavailable);
        expect(await store.stat('items/a')).to.deep.equal({ size: 10 });
        fs.remount('rw');
        await store.put('items/c', piecesOf(randomBytes(10)));
        expect(await store.stat('items/c')).to.deep.equal({ size: 10 });
      });
    });
  } else {
    describe('on a real 1 MiB tmpfs', function () {
      it(tmpfsNotRunMessage);
    });
  }
});
