import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { appendFile, lstat, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import Sqlite from 'better-sqlite3';
import { openFsBlobStore } from '../../src/adapters/fs/blobStore.js';
import { openTieredBlobStore, SMALL_BLOB_FILE } from '../../src/adapters/fs/tieredBlobStore.js';
import { openSmallBlobTable, type SmallBlobTable } from '../../src/adapters/sqlite/smallBlobTable.js';
import { BlobStoreUnavailable, type BlobStore } from '../../src/ports/blobStore.js';
import { canMountTmpfs, mountTmpfs, tmpfsNotRunMessage, type Tmpfs } from '../support/tmpfs.js';
import { blobStoreContract } from './contract.js';
import { bytesOf, MiB, piecesOf, rejectionOf } from './support.js';

const run = promisify(execFile);

const tiered = (smallBlobMaxBytes: number) => async () => {
  const root = await mkdtemp(join(tmpdir(), 'blobstore-tiered-'));
  const store = await openTieredBlobStore({ root, smallBlobMaxBytes });
  return {
    store,
    dispose: async () => {
      await store.close();
      await rm(root, { recursive: true, force: true });
    },
  };
};

// the default limit: most of the contract's blobs are rows, its large ones files
blobStoreContract('tiered (rows up to 64 KiB)', tiered(65_536), { composes: true });
// a low one: blobs of either tier meet in moves, composes, truncates and listings
blobStoreContract('tiered (rows up to 100 bytes)', tiered(100), { composes: true });

describe('tiered blob store', function () {
  let root: string;
  let opened: BlobStore[] = [];
  const open = async (smallBlobMaxBytes = 1000) => {
    const store = await openTieredBlobStore({ root, smallBlobMaxBytes });
    opened.push(store);
    return store;
  };
  /** the rows as the file holds them, read beside the store as another process would */
  const rows = () => {
    const db = new Sqlite(join(root, SMALL_BLOB_FILE), { readonly: true });
    try {
      return db.prepare('SELECT key, length(bytes) AS size FROM small_blobs ORDER BY key').all() as { key: string; size: number }[];
    } finally {
      db.close();
    }
  };
  const isFile = (key: string) =>
    lstat(join(root, key)).then(
      (s) => s.isFile(),
      () => false,
    );
  const text = async (store: BlobStore, key: string) => (await bytesOf(await store.read(key))).toString();
  const put = (store: BlobStore, key: string, value: string | Buffer) => store.put(key, piecesOf(Buffer.from(value), 300));

  beforeEach(async function () {
    root = await mkdtemp(join(tmpdir(), 'blobstore-tiered-'));
  });
  afterEach(async function () {
    for (const store of opened) await store.close();
    opened = [];
    await rm(root, { recursive: true, force: true });
  });

  it('keeps a blob of at most the limit as a row and a larger one as the file <root>/<key>, leaving nothing in .tmp', async function () {
    const store = await open(1000);
    const small = randomBytes(1000);
    const large = randomBytes(1001);
    await put(store, 'items/small', small);
    await put(store, 'items/large', large);
    // through a writer, in pieces that cross the limit on the way
    const writer = await store.createWriter();
    for (let at = 0; at < large.length; at += 400) await writer.write(large.subarray(at, at + 400));
    expect(writer.bytesWritten).to.equal(1001);
    await writer.commit('items/written');
    expect(rows()).to.deep.equal([{ key: 'items/small', size: 1000 }]);
    expect(await isFile('items/small')).to.equal(false);
    expect(await readFile(join(root, 'items', 'large'))).to.deep.equal(large);
    expect(await readFile(join(root, 'items', 'written'))).to.deep.equal(large);
    expect(await readdir(join(root, '.tmp'))).to.deep.equal([]);
    expect(await bytesOf(await store.read('items/small'))).to.deep.equal(small);
  });

  it("keeps copies of a writer's bytes: a buffer the caller changes after its write leaves the blob as written", async function () {
    const store = await open();
    const buffer = Buffer.from('before');
    const writer = await store.createWriter();
    await writer.write(buffer);
    buffer.write('after!');
    await writer.commit('items/a');
    expect(await text(store, 'items/a')).to.equal('before');
  });

  it('makes no row with a limit of 0 (an empty blob is a file too) and still reads the rows written before', async function () {
    await put(await open(1000), 'items/row', 'a row');
    const store = await open(0);
    await put(store, 'items/file', 'a file');
    await store.put('items/empty', piecesOf(Buffer.alloc(0)));
    expect(rows()).to.deep.equal([{ key: 'items/row', size: 5 }]);
    expect(await readFile(join(root, 'items', 'file'), 'utf8')).to.equal('a file');
    expect(await isFile('items/empty')).to.equal(true);
    expect(await text(store, 'items/row')).to.equal('a row');
  });

  it('reads the rows another store on the same root wrote (another process), and they its', async function () {
    const [a, b] = [await open(), await open()];
    await put(a, 'items/from-a', 'written by a');
    await put(b, 'items/from-b', 'written by b');
    expect(await text(b, 'items/from-a')).to.equal('written by a');
    expect(await text(a, 'items/from-b')).to.equal('written by b');
  });

  describe('a file under a key that has a row (left by an earlier version, or by a commit a crash cut short)', function () {
    /** the file as the fs store alone leaves it, then the row over it */
    async function hiddenFile(key: string, file: string, row: string) {
      const files = await openFsBlobStore({ root });
      await put(files, key, file);
      await files.close();
      const store = await open();
      await put(store, key, row);
      expect(await isFile(key)).to.equal(true);
      return store;
    }

    it('is hidden: reads, opens, stats and listings give the row', async function () {
      const store = await hiddenFile('items/a', 'the file under it', 'the row');
      expect(await text(store, 'items/a')).to.equal('the row');
      expect(await bytesOf(await store.read('items/a', { start: 4, end: 6 }))).to.deep.equal(Buffer.from('row'));
      const opened = await store.open!('items/a');
      const into = Buffer.alloc(3);
      expect([opened.size, await opened.read(into, 4), into.toString()]).to.deep.equal([7, 3, 'row']);
      expect(await opened.read(into, 7)).to.equal(0);
      expect(await store.stat('items/a')).to.deep.equal({ size: 7 });
      const listed = [];
      for await (const blob of store.list('items')) listed.push([blob.key, blob.size]);
      expect(listed).to.deep.equal([['items/a', 7]]);
    });

    it('does not come back when the row is deleted or moved away', async function () {
      const store = await hiddenFile('items/a', 'the file under a', 'row a');
      await hiddenFile('items/b', 'the file under b', 'row b');
      await store.delete('items/a');
      await store.move('items/b', 'items/c');
      for (const key of ['items/a', 'items/b']) {
        expect(await store.stat(key), key).to.equal(undefined);
        expect(await isFile(key), key).to.equal(false);
      }
      expect(await text(store, 'items/c')).to.equal('row b');
    });

    it('is replaced, with the row, by a larger blob committed or composed under the key', async function () {
      const store = await hiddenFile('items/a', 'the file under a', 'row a');
      await hiddenFile('items/b', 'the file under b', 'row b');
      const large = randomBytes(1500);
      await store.put('items/a', piecesOf(large));
      await store.put('uploads/u/0', piecesOf(large));
      await store.compose!('items/b', [
        { key: 'uploads/u/0', start: 0, length: 1500 },
        { key: 'items/a', start: 0, length: 10 },
      ]);
      expect(rows()).to.deep.equal([]);
      expect(await bytesOf(await store.read('items/a'))).to.deep.equal(large);
      expect(await bytesOf(await store.read('items/b'))).to.deep.equal(Buffer.concat([large, large.subarray(0, 10)]));
    });
  });

  it('moves a file onto a key that holds a row, and a row onto a key that holds a file, each key holding one whole blob after', async function () {
    const store = await open();
    const large = randomBytes(1500);
    await store.put('uploads/u/0', piecesOf(large));
    await put(store, 'items/a', 'a row');
    await store.move('uploads/u/0', 'items/a');
    expect(await bytesOf(await store.read('items/a'))).to.deep.equal(large);
    expect(await store.stat('uploads/u/0')).to.equal(undefined);
    await put(store, 'uploads/u/1', 'another row');
    await store.move('uploads/u/1', 'items/a');
    expect(await text(store, 'items/a')).to.equal('another row');
    expect(rows()).to.deep.equal([{ key: 'items/a', size: 11 }]);
    expect(await store.stat('uploads/u/1')).to.equal(undefined);
  });

  it('makes a composed blob of a row when it is small enough, and a file of its row sources when it is not', async function () {
    const store = await open(1000);
    const [a, b] = [randomBytes(600), randomBytes(600)];
    await store.put('uploads/u/a', piecesOf(a));
    await store.put('uploads/u/b', piecesOf(b));
    await store.compose!('items/small', [
      { key: 'uploads/u/a', start: 100, length: 400 },
      { key: 'uploads/u/b', start: 0, length: 600 },
    ]);
    expect(rows().map((r) => r.key)).to.deep.equal(['items/small', 'uploads/u/a', 'uploads/u/b']);
    await store.compose!('items/large', [
      { key: 'uploads/u/a', start: 0, length: 600 },
      { key: 'uploads/u/b', start: 0, length: 600 },
    ]);
    // the sources became files of the same bytes; the composed blob keeps them once they are deleted
    expect(rows().map((r) => r.key)).to.deep.equal(['items/small']);
    await store.deletePrefix('uploads/u');
    expect(await bytesOf(await store.read('items/small'))).to.deep.equal(Buffer.concat([a.subarray(100, 500), b]));
    expect(await bytesOf(await store.read('items/large'))).to.deep.equal(Buffer.concat([a, b]));
  });

  it('keeps, through a deletePrefix, a row written under the prefix after the delete began', async function () {
    const store = await open();
    await put(store, 'uploads/u/0', 'chunk 0');
    await store.put('uploads/u/1', piecesOf(randomBytes(1500)));
    const deleting = store.deletePrefix('uploads/u');
    const putting = put(store, 'uploads/u/2', 'after');
    await Promise.all([deleting, putting]);
    expect(await store.stat('uploads/u/0')).to.equal(undefined);
    expect(await store.stat('uploads/u/1')).to.equal(undefined);
    expect(await text(store, 'uploads/u/2')).to.equal('after');
  });

  it('lists rows and files under a prefix, each once, and nothing beside it (a key that only starts like the prefix)', async function () {
    const store = await open(1000);
    await put(store, 'uploads/u/0', 'row');
    await store.put('uploads/u/1', piecesOf(randomBytes(1500)));
    await put(store, 'uploads/u/deeper/2', 'deeper row');
    await put(store, 'uploads/u_2/0', 'beside');
    await put(store, 'uploads/u', 'the prefix itself');
    const listed = [];
    for await (const blob of store.list('uploads/u')) listed.push([blob.key, blob.size]);
    expect(listed.sort()).to.deep.equal([
      ['uploads/u/0', 3],
      ['uploads/u/1', 1500],
      ['uploads/u/deeper/2', 10],
    ]);
  });

  describe('the small-blob table', function () {
    let table: SmallBlobTable;
    beforeEach(function () {
      table = openSmallBlobTable(join(root, SMALL_BLOB_FILE));
    });
    afterEach(async function () {
      await table.close();
    });

    it('gives every write a generation never given before, the file reopened and the newest rows deleted too', async function () {
      const first = await table.put('a', Buffer.from('1'));
      const second = await table.put('a', Buffer.from('2'));
      const third = await table.put('b', Buffer.from('3'));
      expect([second > first, third > second]).to.deep.equal([true, true]);
      expect(await table.deleteIf('b', third)).to.equal(true);
      await table.close();
      table = openSmallBlobTable(join(root, SMALL_BLOB_FILE));
      expect(table.lastGen()).to.equal(third);
      expect(await table.put('b', Buffer.from('4'))).to.equal(third + 1);
    });

    it('changes a row only at the generation asked: a delete, move or cut of an older one changes nothing', async function () {
      const old = await table.put('a', Buffer.from('old bytes'));
      const now = await table.put('a', Buffer.from('new bytes'));
      expect(await table.deleteIf('a', old)).to.equal(false);
      expect(await table.move('a', old, 'b')).to.equal(undefined);
      expect(await table.truncate('a', old, 3)).to.equal(undefined);
      expect(table.get('a')?.bytes.toString()).to.equal('new bytes');
      expect(table.get('b')).to.equal(undefined);
      const cut = await table.truncate('a', now, 3);
      expect(table.get('a')).to.deep.include({ gen: cut, bytes: Buffer.from('new') });
      // no longer than asked: unchanged, its generation too
      expect(await table.truncate('a', cut!, 10)).to.equal(cut);
      const moved = await table.move('a', cut!, 'b');
      expect([table.get('a'), table.get('b')?.gen, table.get('b')?.bytes.toString()]).to.deep.equal([undefined, moved, 'new']);
    });

    it('commits the writes in flight when closed, and lets a process with nothing else to do end after them', async function () {
      // in a process of its own: one that waits for nothing but the table must neither hang nor end early
      const script = `
        import { openSmallBlobTable } from ${JSON.stringify(pathToFileURL(resolve('src/adapters/sqlite/smallBlobTable.ts')).href)};
        const table = openSmallBlobTable(process.argv[1]);
        const puts = Array.from({ length: 200 }, (_, i) => table.put('k' + i, Buffer.alloc(100, i)));
        const closed = table.close();
        const settled = await Promise.allSettled(puts);
        await closed;
        console.log(settled.filter((s) => s.status === 'fulfilled').length);
      `;
      const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, join(root, 'other.db')]);
      expect(stdout).to.equal('200\n');
      const other = openSmallBlobTable(join(root, 'other.db'));
      try {
        expect(other.page('', '~', '', 1000)).to.have.length(200);
      } finally {
        await other.close();
      }
    });

    it('deletes the rows of a key range written at or before a generation', async function () {
      const a = await table.put('p/a', Buffer.from('a'));
      await table.put('p/b', Buffer.from('b'));
      await table.put('q/a', Buffer.from('c'));
      expect(await table.deleteRange('p/', 'p0', a)).to.equal(1);
      expect(table.page('', '\uffff', '', 10).map((r) => r.key)).to.deep.equal(['p/b', 'q/a']);
    });
  });

  if (canMountTmpfs) {
    describe('on a real 1 MiB tmpfs that fills up', function () {
      let fs: Tmpfs;
      beforeEach(function () {
        fs = mountTmpfs(MiB);
        root = join(fs.dir, 'blobs');
      });
      afterEach(async function () {
        for (const store of opened) await store.close();
        opened = [];
        fs.remove();
      });

      it('answers BlobStoreUnavailable (SQLITE_FULL) to a small blob and to the readiness probe, and takes both once space is back', async function () {
        const store = await open(65_536);
        await put(store, 'items/before', 'fits');
        const filler = join(fs.dir, 'filler');
        await writeFile(filler, Buffer.alloc(0));
        for (;;) {
          const written = await appendFile(filler, Buffer.alloc(64 * 1024)).then(
            () => true,
            () => false,
          );
          if (!written) break;
        }
        const error = await rejectionOf(put(store, 'items/small', randomBytes(60_000)));
        expect(error).to.be.instanceOf(BlobStoreUnavailable);
        expect(((error as Error).cause as { code?: string }).code).to.equal('SQLITE_FULL');
        expect(await rejectionOf(store.probeWrite!())).to.be.instanceOf(BlobStoreUnavailable);
        expect(await store.stat('items/small')).to.equal(undefined);
        await rm(filler);
        await put(store, 'items/small', 'now it fits');
        await store.probeWrite!();
        expect(await text(store, 'items/small')).to.equal('now it fits');
        expect(await text(store, 'items/before')).to.equal('fits');
      });
    });
  } else {
    describe('on a real 1 MiB tmpfs that fills up', function () {
      it(tmpfsNotRunMessage);
    });
  }
});
