import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { GridFSBucket } from 'mongodb';
import { SERVICE_WALLET_FILE, startTestService, type TestService } from '../support/testService.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { mongoTarget, testDatabases } from '../mongo/server.js';
import { runScript } from '../support/runScript.js';

/**
 * The whole service on the MongoDB stores (READ_STORE=mongo, BLOB_STORE=gridfs), as replicas share
 * them when scaled out: a first step, one upload and its status, on the stand-in (or on MONGO_URL).
 */
describe(`the service on the MongoDB read store and GridFS (${mongoTarget})`, function () {
  this.timeout(60_000);
  const databases = testDatabases();
  let database: string;
  let service: TestService;
  before(async function () {
    await databases.start();
    database = databases.fresh();
    service = await startTestService({ READ_STORE: 'mongo', BLOB_STORE: 'gridfs', MONGO_URL: databases.url(), MONGO_DATABASE: database });
  });
  after(async function () {
    await service?.close();
    await databases.drop(database);
    await databases.close();
  });

  it('accepts an upload, keeps its bytes in GridFS and answers its status from MongoDB', async function () {
    const item = await signedItem(signers.ethereum(), 'stored in MongoDB', [{ name: 'Content-Type', value: 'text/plain' }]);
    const res = await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()), headers: { 'content-type': 'application/octet-stream' } });
    expect(res.status).to.equal(200);
    expect((await res.json()).id).to.equal(item.id);

    const status = await fetch(`${service.url}/tx/${item.id}/status`);
    expect(status.status).to.equal(200);
    expect(await status.json()).to.include({ status: 'CONFIRMED', info: 'new', rawContentLength: item.getRaw().length });

    // the bytes are in the database's GridFS bucket, not under DATA_DIR
    const stored = await databases.client().db(database).collection('blobs.files').find().toArray();
    expect(stored.map((f) => f.length)).to.deep.equal([item.getRaw().length]);
    const bytes: Buffer[] = [];
    for await (const chunk of new GridFSBucket(databases.client().db(database), { bucketName: 'blobs' }).openDownloadStream(stored[0]!._id))
      bytes.push(chunk as Buffer);
    const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
    expect(sha(Buffer.concat(bytes))).to.equal(sha(item.getRaw()));
  });

  it('is audited by npm run audit on the same stores: nothing found', async function () {
    const env = {
      READ_STORE: 'mongo',
      BLOB_STORE: 'gridfs',
      MONGO_URL: databases.url(),
      MONGO_DATABASE: database,
      DATA_DIR: service.dataDir,
      WALLET_FILE: SERVICE_WALLET_FILE,
    };
    const result = await runScript('audit', ['--json', '--blob-grace-minutes', '0'], env);
    expect(result.code, `${result.stdout}\n${result.stderr}`).to.equal(0);
    const report = JSON.parse(result.stdout);
    expect(report.findings).to.deep.equal([]);
    expect(report.head).to.equal(String(await service.eventStore.headPosition()));
  });
});
