import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openBlobStoreFromConfig, openReadStoreFromConfig, type StoresConfig } from '../../src/adapters/storesFromConfig.js';
import { ReadStoreUnavailable } from '../../src/ports/readStore.js';
import { bytesOf, piecesOf, rejectionOf } from '../blobStore/support.js';
import { smallBlobKeys } from '../support/storedBlob.js';

const run = promisify(execFile);
/** nothing listens there: connecting fails at once, server selection gives up after 300 ms */
const UNREACHABLE = 'mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=300';

describe('stores from configuration', function () {
  let dataDir: string;
  const config = (overrides: Partial<StoresConfig> = {}): StoresConfig => ({ readStore: 'sqlite', blobStore: 'fs', dataDir, ...overrides });
  beforeEach(async function () {
    dataDir = await mkdtemp(join(tmpdir(), 'stores-'));
  });
  afterEach(async function () {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('opens the embedded stores where the service always kept them', async function () {
    const readStore = await openReadStoreFromConfig(config());
    const blobStore = await openBlobStoreFromConfig(config());
    try {
      await readStore.commit([{ collection: 'c', id: 'a', doc: 1, position: 1n }], []);
      await blobStore.put('items/a', piecesOf(Buffer.from('abc')));
      const large = Buffer.alloc(65_537, 1);
      await blobStore.put('items/b', piecesOf(large));
      expect((await bytesOf(await blobStore.read('items/a'))).toString()).to.equal('abc');
      expect((await stat(join(dataDir, 'read.db'))).isFile()).to.equal(true);
      // at most SMALL_BLOB_MAX_BYTES (65,536 by default): a row of blobs/.small-blobs.db; larger: a file
      expect(smallBlobKeys(dataDir)).to.deep.equal(['items/a']);
      expect((await stat(join(dataDir, 'blobs', 'items', 'b'))).size).to.equal(65_537);
    } finally {
      await readStore.close();
      await blobStore.close();
    }
  });

  it('asks for MONGO_URL when a MongoDB store is configured without one', async function () {
    expect((await rejectionOf(openReadStoreFromConfig(config({ readStore: 'mongo' })))).message).to.equal('MONGO_URL is required when READ_STORE=mongo');
    expect((await rejectionOf(openBlobStoreFromConfig(config({ blobStore: 'gridfs' })))).message).to.equal('MONGO_URL is required when BLOB_STORE=gridfs');
  });

  it('fails to open a MongoDB read store it cannot reach with ReadStoreUnavailable', async function () {
    const failure = await rejectionOf(openReadStoreFromConfig(config({ readStore: 'mongo', mongoUrl: UNREACHABLE })));
    // by name: under mocha this file is require()d, and the adapter, imported dynamically, gets its
    // own copy of the port module (an ESM one), so instanceof cannot hold across the two
    expect(failure.name).to.equal(new ReadStoreUnavailable().name);
    expect(failure.message).to.match(/^MongoDB read store unavailable: /);
  });

  it('fails to open a GridFS blob store it cannot reach', async function () {
    const failure = await rejectionOf(openBlobStoreFromConfig(config({ blobStore: 'gridfs', mongoUrl: UNREACHABLE })));
    expect(failure.name).to.equal('MongoServerSelectionError');
  });

  it('never loads the MongoDB driver for the embedded stores', async function () {
    // a fresh process: this one has loaded the driver for other tests
    const script = `
      import { createRequire } from 'node:module';
      const { openReadStoreFromConfig, openBlobStoreFromConfig } = await import('./src/adapters/storesFromConfig.js');
      const config = { readStore: 'sqlite', blobStore: 'fs', dataDir: ${JSON.stringify(dataDir)} };
      await (await openReadStoreFromConfig(config)).close();
      await (await openBlobStoreFromConfig(config)).close();
      const loaded = Object.keys(createRequire(import.meta.url).cache);
      console.log(JSON.stringify({ sqlite: loaded.some((p) => p.includes('better-sqlite3')), mongodb: loaded.some((p) => /node_modules[\\\\/](mongodb|bson)[\\\\/]/.test(p)) }));
    `;
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: process.cwd() });
    expect(JSON.parse(stdout)).to.deep.equal({ sqlite: true, mongodb: false });
  });
});
