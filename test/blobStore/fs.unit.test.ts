import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openFsBlobStore } from '../../src/adapters/fs/blobStore.js';
import { sweepTemp } from '../../src/adapters/fs/sweep.js';
import type { BlobStore } from '../../src/ports/blobStore.js';
import { blobStoreContract } from './contract.js';
import { bytesOf, piecesOf, rejectionOf } from './support.js';

blobStoreContract(
  'fs',
  async () => {
    const root = await mkdtemp(join(tmpdir(), 'blobstore-'));
    const store = await openFsBlobStore({ root });
    return {
      store,
      dispose: async () => {
        await store.close();
        await rm(root, { recursive: true, force: true });
      },
    };
  },
  { composes: true },
);

describe('fs blob store', function () {
  /** the store's root sits inside `parent`, so a test can see whether anything escaped it */
  let parent: string;
  let root: string;
  let store: BlobStore | undefined;
  const open = async (staleTempAfterMs?: number) => {
    store = await openFsBlobStore({ root, staleTempAfterMs });
    return store;
  };
  const tempEntries = () => readdir(join(root, '.tmp'));

  beforeEach(async function () {
    parent = await mkdtemp(join(tmpdir(), 'blobstore-fs-'));
    root = join(parent, 'store');
  });
  afterEach(async function () {
    await store?.close();
    store = undefined;
    await rm(parent, { recursive: true, force: true });
  });

  describe('layout', function () {
    it('commits a blob as the file <root>/<key> holding exactly its bytes', async function () {
      const bytes = randomBytes(100_003);
      await (await open()).put('items/abc', piecesOf(bytes));
      expect((await readFile(join(root, 'items', 'abc'))).equals(bytes)).to.equal(true);
    });

    it('has the directory entry in place after commit, and nothing left in .tmp', async function () {
      const writer = await (await open()).createWriter();
      await writer.write(randomBytes(10));
      expect(await tempEntries()).to.have.length(1);
      await writer.commit('items/abc');
      expect(await readdir(join(root, 'items'))).to.deep.equal(['abc']);
      expect(await tempEntries()).to.deep.equal([]);
    });

    it('removes the temp file on abort', async function () {
      const writer = await (await open()).createWriter();
      await writer.write(randomBytes(10));
      await writer.abort();
      expect(await tempEntries()).to.deep.equal([]);
    });

    it('never touches anything outside the root when given escaping keys', async function () {
      const s = await open();
      const writer = await s.createWriter();
      await rejectionOf(s.put('../escaped', piecesOf(randomBytes(1))));
      await rejectionOf(writer.commit('../escaped'));
      await rejectionOf(s.deletePrefix('..'));
      await rejectionOf(s.delete('../store'));
      await writer.abort();
      expect(await readdir(parent)).to.deep.equal(['store']);
      expect(await readdir(root)).to.deep.equal(['.tmp']);
    });

    it('leaves nothing in .tmp after deletePrefix', async function () {
      const s = await open();
      await s.put('uploads/u1/0', piecesOf(randomBytes(10)));
      await s.deletePrefix('uploads/u1');
      expect(await tempEntries()).to.deep.equal([]);
      expect(await readdir(join(root, 'uploads'))).to.deep.equal([]);
    });

    it('cannot hold a blob at a key that is also a prefix of other blobs', async function () {
      const s = await open();
      await s.put('a/b', piecesOf(randomBytes(1)));
      expect(await rejectionOf(s.put('a', piecesOf(randomBytes(2))))).to.include({ code: 'EISDIR' });
      expect(await rejectionOf(s.put('a/b/c', piecesOf(randomBytes(3))))).to.include({ code: 'EEXIST' });
      expect(await s.stat('a/b')).to.deep.equal({ size: 1 });
      expect(await tempEntries()).to.deep.equal([]);
    });
  });

  describe('temp leftovers', function () {
    const leaveLeftovers = async () => {
      await mkdir(join(root, '.tmp', 'x.deleted', 'u1'), { recursive: true });
      await writeFile(join(root, '.tmp', 'x.deleted', 'u1', '0'), 'chunk');
      await writeFile(join(root, '.tmp', 'dead-writer'), 'partial');
    };

    it('removes leftovers of a crash at open', async function () {
      await leaveLeftovers();
      await open(0);
      expect(await tempEntries()).to.deep.equal([]);
    });

    it('keeps leftovers younger than an hour by default (another process may be writing them)', async function () {
      await leaveLeftovers();
      await open();
      expect((await tempEntries()).sort()).to.deep.equal(['dead-writer', 'x.deleted']);
    });

    it('sweeps an entry once it is staleTempAfterMs old, not a millisecond before', async function () {
      await leaveLeftovers();
      const info = await lstat(join(root, '.tmp', 'dead-writer'));
      const touched = Math.max(info.mtimeMs, info.ctimeMs);
      await sweepTemp(join(root, '.tmp'), 1000, touched + 999);
      expect(await tempEntries()).to.include('dead-writer');
      await sweepTemp(join(root, '.tmp'), 1000, touched + 1000);
      expect(await tempEntries()).to.not.include('dead-writer');
    });
  });

  describe('writer and close', function () {
    it('writes chunks issued without waiting in call order', async function () {
      const parts = [randomBytes(5), randomBytes(70_000), randomBytes(1)];
      const writer = await (await open()).createWriter();
      await Promise.all(parts.map((part) => writer.write(part)));
      await writer.commit('items/x');
      expect((await readFile(join(root, 'items', 'x'))).equals(Buffer.concat(parts))).to.equal(true);
    });

    it('lets a read opened before a replacing commit finish with the old bytes', async function () {
      const s = await open();
      const before = randomBytes(3 * 1024 * 1024);
      await s.put('items/x', piecesOf(before));
      const reading = await s.read('items/x');
      await s.put('items/x', piecesOf(randomBytes(10)));
      expect((await bytesOf(reading)).equals(before)).to.equal(true);
    });

    it("opens a blob for reads at any position into the caller's buffer, of the version open when opened", async function () {
      const s = await open();
      const bytes = randomBytes(2 * 1024 * 1024 + 5);
      await s.put('items/x', piecesOf(bytes));
      const blob = await s.open!('items/x');
      try {
        await s.put('items/x', piecesOf(randomBytes(10)));
        expect(blob.size).to.equal(bytes.length);
        const into = Buffer.alloc(1024 * 1024);
        expect(await blob.read(into, 1_000_000)).to.equal(into.length);
        expect(into.equals(bytes.subarray(1_000_000, 1_000_000 + into.length))).to.equal(true);
        // at the end: what is left, then nothing
        expect(await blob.read(into.subarray(0, 100), bytes.length - 7)).to.equal(7);
        expect(into.subarray(0, 7).equals(bytes.subarray(bytes.length - 7))).to.equal(true);
        expect(await blob.read(into, bytes.length)).to.equal(0);
      } finally {
        await blob.close();
      }
    });

    it('refuses to open a blob that is absent, or a key that is only a prefix', async function () {
      const s = await open();
      await s.put('items/a/b', piecesOf(randomBytes(3)));
      expect((await rejectionOf(s.open!('items/x'))).name).to.equal('BlobNotFound');
      expect((await rejectionOf(s.open!('items/a'))).name).to.equal('BlobNotFound');
    });

    it('aborts open writers on close and refuses use afterwards', async function () {
      const s = await open();
      const writer = await s.createWriter();
      await writer.write(randomBytes(10));
      await s.close();
      expect(await tempEntries()).to.deep.equal([]);
      expect((await rejectionOf(writer.write(randomBytes(1)))).message).to.equal('blob writer aborted');
      expect((await rejectionOf(s.createWriter())).message).to.equal('blob store is closed');
      expect((await rejectionOf(s.stat('items/x'))).message).to.equal('blob store is closed');
    });
  });

  describe('composed blobs', function () {
    const chunks = [randomBytes(100_000), randomBytes(60_007)];
    const composeChunks = async (s: BlobStore) => {
      for (const [i, chunk] of chunks.entries()) await s.put(`uploads/u/${i}`, piecesOf(chunk));
      await s.compose!('items/c', [
        { key: 'uploads/u/0', start: 0, length: 100_000 },
        { key: 'uploads/u/1', start: 0, length: 60_007 },
      ]);
    };

    it('are made of the very files of their sources (same inodes), no byte copied, nothing left in .tmp', async function () {
      const s = await open();
      await composeChunks(s);
      const sources = await Promise.all([0, 1].map((i) => lstat(join(root, 'uploads', 'u', String(i)))));
      const names = (await readdir(join(root, 'items', 'c'))).sort();
      expect(names).to.deep.equal(['.0', '.1', '.manifest']);
      const parts = await Promise.all(['.0', '.1'].map((name) => lstat(join(root, 'items', 'c', name))));
      expect(parts.map((p) => p.ino)).to.deep.equal(sources.map((p) => p.ino));
      expect(parts.map((p) => p.nlink)).to.deep.equal([2, 2]);
      expect(await tempEntries()).to.deep.equal([]);
    });

    it('read the same bytes from a store opened again on the same root, after their sources are deleted', async function () {
      const first = await open();
      await composeChunks(first);
      await first.deletePrefix('uploads/u');
      await first.close();
      const again = await open(0);
      expect((await bytesOf(await again.read('items/c'))).equals(Buffer.concat(chunks))).to.equal(true);
      expect(await again.stat('items/c')).to.deep.equal({ size: 160_007 });
    });

    it('change in place when composed again: the new links and manifest, none of the old version left', async function () {
      const s = await open();
      await composeChunks(s);
      const inodes = async () => {
        const dir = join(root, 'items', 'c');
        const names = (await readdir(dir)).filter((name) => name !== '.manifest');
        return (await Promise.all(names.map(async (name) => (await lstat(join(dir, name))).ino))).sort();
      };
      const before = await inodes();
      const dir = (await lstat(join(root, 'items', 'c'))).ino;
      await s.compose!('items/c', [{ key: 'uploads/u/1', start: 7, length: 60_000 }]);
      // the same directory: the key never stood empty between the two versions
      expect((await lstat(join(root, 'items', 'c'))).ino).to.equal(dir);
      expect(await inodes()).to.deep.equal([(await lstat(join(root, 'uploads', 'u', '1'))).ino]);
      expect((await bytesOf(await s.read('items/c'))).equals(chunks[1]!.subarray(7))).to.equal(true);
      await s.truncate('items/c', 10);
      expect((await bytesOf(await s.read('items/c'))).equals(chunks[1]!.subarray(7, 17))).to.equal(true);
      expect(await readdir(join(root, 'items', 'c'))).to.have.length(2);
      expect(before).to.have.length(2);
      expect(await tempEntries()).to.deep.equal([]);
    });

    // Replacing a blob of one kind by the other: no moment without a blob under the key, a crash
    // included, so never "move the old one away, then rename the new one in".
    it('take a file committed over them as their one part, in place (the same directory: the key never empty)', async function () {
      const s = await open();
      await composeChunks(s);
      const dir = (await lstat(join(root, 'items', 'c'))).ino;
      const bytes = randomBytes(5_000);
      await s.put('items/c', piecesOf(bytes));
      expect((await lstat(join(root, 'items', 'c'))).ino).to.equal(dir);
      expect((await bytesOf(await s.read('items/c'))).equals(bytes)).to.equal(true);
      expect(await s.stat('items/c')).to.deep.equal({ size: 5_000 });
      expect(await readdir(join(root, 'items', 'c'))).to.have.length(2);
      expect(await tempEntries()).to.deep.equal([]);
    });

    it('take another composed blob moved over them in place, and leave its key empty', async function () {
      const s = await open();
      await composeChunks(s);
      await s.compose!('items/d', [{ key: 'uploads/u/1', start: 0, length: 60_007 }]);
      const dir = (await lstat(join(root, 'items', 'c'))).ino;
      await s.move('items/d', 'items/c');
      expect((await lstat(join(root, 'items', 'c'))).ino).to.equal(dir);
      expect((await bytesOf(await s.read('items/c'))).equals(chunks[1]!)).to.equal(true);
      expect(await s.stat('items/d')).to.equal(undefined);
      expect(await tempEntries()).to.deep.equal([]);
    });

    it('are written out as a file renamed over a file they replace (one rename: the key never empty)', async function () {
      const s = await open();
      for (const [i, chunk] of chunks.entries()) await s.put(`uploads/u/${i}`, piecesOf(chunk));
      await s.put('items/c', piecesOf(randomBytes(10)));
      await s.compose!('items/c', [
        { key: 'uploads/u/0', start: 0, length: 100_000 },
        { key: 'uploads/u/1', start: 0, length: 60_007 },
      ]);
      expect((await lstat(join(root, 'items', 'c'))).isFile()).to.equal(true);
      expect((await bytesOf(await s.read('items/c'))).equals(Buffer.concat(chunks))).to.equal(true);
      await s.compose!('items/d', [{ key: 'uploads/u/1', start: 0, length: 60_007 }]);
      await s.move('items/d', 'items/c');
      expect((await lstat(join(root, 'items', 'c'))).isFile()).to.equal(true);
      expect((await bytesOf(await s.read('items/c'))).equals(chunks[1]!)).to.equal(true);
      expect(await s.stat('items/d')).to.equal(undefined);
      expect(await tempEntries()).to.deep.equal([]);
    });

    it('leave nothing in .tmp when composing fails', async function () {
      const s = await open();
      await s.put('uploads/u/0', piecesOf(randomBytes(10)));
      await rejectionOf(
        s.compose!('items/c', [
          { key: 'uploads/u/0', start: 0, length: 10 },
          { key: 'uploads/u/9', start: 0, length: 1 },
        ]),
      );
      expect(await tempEntries()).to.deep.equal([]);
    });
  });
});
