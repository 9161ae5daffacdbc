import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openFsBlobStore } from '../../src/adapters/fs/blobStore.js';
import { LayeredBlobStore } from '../../src/adapters/layered/layeredBlobStore.js';
import type { BlobStore } from '../../src/ports/blobStore.js';
import { bytesOf, piecesOf } from '../blobStore/support.js';
import { MemoryBlobBackend } from './memoryBlobBackend.js';

const text = async (store: BlobStore, key: string) => (await bytesOf(await store.read(key))).toString('latin1');
const put = (store: BlobStore, key: string, value: string) => store.put(key, piecesOf(Buffer.from(value, 'latin1')));
const writeAt = (store: BlobStore, key: string, offset: number, value: string) => store.writeAt(key, offset, piecesOf(Buffer.from(value, 'latin1')));

// The same steps on the fs store and on the GridFS layout (in-memory backend): the bytes and sizes must agree.
describe('GridFS blob store logic: parts, as the fs store writes them into a file', function () {
  let dir: string;
  let fs: BlobStore;
  let store: LayeredBlobStore;
  beforeEach(async function () {
    dir = await mkdtemp(join(tmpdir(), 'layered-vs-fs-'));
    fs = await openFsBlobStore({ root: dir });
    store = new LayeredBlobStore(new MemoryBlobBackend());
  });
  afterEach(async function () {
    await fs.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** runs the same steps on both stores and compares what they hold */
  const both = async (steps: (s: BlobStore) => Promise<unknown>) => {
    await steps(fs);
    await steps(store);
    const [expected, actual] = [await text(fs, 'uploads/u/data'), await text(store, 'uploads/u/data')];
    expect(actual).to.equal(expected);
    expect(await store.stat('uploads/u/data')).to.deep.equal(await fs.stat('uploads/u/data'));
    return actual;
  };

  it('reads zeros in a hole between parts', async function () {
    const read = await both(async (s) => {
      await writeAt(s, 'uploads/u/data', 5, 'cd');
      await writeAt(s, 'uploads/u/data', 0, 'ab');
    });
    expect(read).to.equal('ab\0\0\0cd');
  });

  it('cuts a blob shorter, and leaves zeros when a later part is written past the cut', async function () {
    const read = await both(async (s) => {
      await writeAt(s, 'uploads/u/data', 0, 'abcdefgh');
      await s.truncate('uploads/u/data', 3);
      await writeAt(s, 'uploads/u/data', 6, 'XY');
    });
    expect(read).to.equal('abc\0\0\0XY');
  });

  it('never makes a blob longer by truncating it', async function () {
    const read = await both(async (s) => {
      await writeAt(s, 'uploads/u/data', 0, 'abc');
      await s.truncate('uploads/u/data', 10);
    });
    expect(read).to.equal('abc');
  });

  it('keeps the zeros of a cut that ends in a hole', async function () {
    const read = await both(async (s) => {
      await writeAt(s, 'uploads/u/data', 0, 'ab');
      await writeAt(s, 'uploads/u/data', 10, 'cd');
      await s.truncate('uploads/u/data', 6);
    });
    expect(read).to.equal('ab\0\0\0\0');
  });

  it('overlays a part on an earlier one it only partly covers', async function () {
    const read = await both(async (s) => {
      await writeAt(s, 'uploads/u/data', 0, 'aaaaaaaa');
      await writeAt(s, 'uploads/u/data', 2, 'bb');
      await writeAt(s, 'uploads/u/data', 6, 'cccc');
    });
    expect(read).to.equal('aabbaacccc');
  });

  it('writes parts into a blob that was put whole', async function () {
    await put(fs, 'uploads/u/data', 'whole blob');
    await put(store, 'uploads/u/data', 'whole blob');
    const read = await both((s) => writeAt(s, 'uploads/u/data', 6, 'BLOB!'));
    expect(read).to.equal('whole BLOB!');
  });

  it('reads ranges across parts and holes', async function () {
    await both(async (s) => {
      await writeAt(s, 'uploads/u/data', 0, '0123');
      await writeAt(s, 'uploads/u/data', 6, '6789');
    });
    for (const [start, end] of [
      [0, 9],
      [3, 6],
      [4, 5],
      [5, 5],
      [2, 8],
    ] as const) {
      const expected = await bytesOf(await fs.read('uploads/u/data', { start, end }));
      expect((await bytesOf(await store.read('uploads/u/data', { start, end }))).equals(expected), `${start}-${end}`).to.equal(true);
    }
  });
});
