import { expect } from 'chai';
import type Database from 'better-sqlite3';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { openFsBlobStore } from '../../src/adapters/fs/blobStore.js';
import type { DataItemId } from '../../src/domain/ids.js';
import { expectContractError } from '../support/hostileService.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { createUpload, postChunk, postChunks } from '../support/multipart.js';
import { fillableBlobStore, type FillableBlobStore } from '../support/fillableBlobStore.js';
import { refusingEventStore, type RefusingEventStore } from '../support/refusingEventStore.js';
import { openSqliteEventStoreWithConnection } from '../support/sqliteEventStoreConnection.js';
import { itemOfSize } from '../support/sizedItem.js';
import { startTestService, type TestService } from '../support/testService.js';
import { tempFiles } from '../limits/support.js';
import { eventually } from '../support/eventually.js';

const ADMIN_TOKEN = 'test-only-admin-token-0123456789';
const UNAVAILABLE = [503, 'Service unavailable'] as const;

/** item ids whose blob `items/<id>` exists while their stream has no DataItemAccepted */
async function itemBlobsWithoutAcceptance(service: TestService): Promise<string[]> {
  const ids = await readdir(join(service.dataDir, 'blobs', 'items')).catch(() => []);
  const orphans: string[] = [];
  for (const id of ids) if ((await service.items.read(id)).status !== 'accepted') orphans.push(id);
  return orphans;
}

const uploadFiles = (service: TestService, uploadId: string) => readdir(join(service.dataDir, 'blobs', 'uploads', uploadId)).catch(() => []);
/** the offsets of an upload's chunk blobs (`<offset>_<random>`, one per recorded chunk) */
const chunkOffsets = (files: string[]) =>
  files
    .map((file) => /^(\d+)_[0-9a-f]{16}$/.exec(file)?.[1])
    .map(Number)
    .sort((a, b) => a - b);
const statusOf = async (service: TestService, uploadId: string) => (await (await fetch(`${service.url}/chunks/arweave/${uploadId}/status`)).json()).status;

describe('honest answers when a store cannot take writes', function () {
  this.timeout(60_000);
  let service: TestService;
  let events: RefusingEventStore;
  let eventsDb: Database.Database;
  let blobs: FillableBlobStore;
  const post = (path: string, body: Uint8Array) =>
    fetch(`${service.url}${path}`, { method: 'POST', body: asBody(body), headers: { 'content-type': 'application/octet-stream' } });

  beforeEach(async function () {
    service = await startTestService({ ADMIN_TOKEN }, async (dataDir) => {
      const { store: eventStore, db } = openSqliteEventStoreWithConnection({ path: join(dataDir, 'events.db') });
      eventsDb = db;
      events = refusingEventStore(eventStore, eventsDb);
      blobs = fillableBlobStore(await openFsBlobStore({ root: join(dataDir, 'blobs') }));
      return { eventStore: events.store, blobStore: blobs.store };
    });
  });
  afterEach(() => service.close());

  describe('a single upload', function () {
    it('answers 503 when the event store is read-only, keeps no blob of the item, and accepts it once the store is writable', async function () {
      const item = await signedItem(signers.arweave());
      eventsDb.pragma('query_only = ON');
      await expectContractError(await post('/v1/tx', item.getRaw()), ...UNAVAILABLE);
      expect(await readdir(join(service.dataDir, 'blobs', 'items')).catch(() => [])).to.deep.equal([]);
      expect(await tempFiles(service.dataDir)).to.deep.equal([]);

      eventsDb.pragma('query_only = OFF');
      const res = await post('/v1/tx', item.getRaw());
      expect(res.status).to.equal(200);
      expect((await res.json()).id).to.equal(item.id);
      expect(await itemBlobsWithoutAcceptance(service)).to.deep.equal([]);
    });

    it('answers 503 when only the acceptance cannot be recorded: the bytes committed under the item key are deleted', async function () {
      const item = await signedItem(signers.arweave());
      events.refuse((stream) => stream.startsWith('dataItem-'));
      await expectContractError(await post('/tx', item.getRaw()), ...UNAVAILABLE);
      expect(await readdir(join(service.dataDir, 'blobs', 'items')).catch(() => [])).to.deep.equal([]);
      events.refuse(undefined);
      expect((await post('/tx', item.getRaw())).status).to.equal(200);
    });

    it('answers 503 when the blob store is full, leaves no temporary file, and accepts the item once space is back', async function () {
      const item = await signedItem(signers.arweave(), Buffer.alloc(400 * 1024, 7));
      await blobs.fill();
      await expectContractError(await post('/v1/tx', item.getRaw()), ...UNAVAILABLE);
      expect(await tempFiles(service.dataDir)).to.deep.equal([]);
      blobs.free();
      expect((await post('/v1/tx', item.getRaw())).status).to.equal(200);
    });
  });

  describe('a multi-part upload', function () {
    it('answers 503 to a chunk while the blob store is full and 503 to creating an upload while the event store is read-only; both work again after', async function () {
      const item = await itemOfSize(signers.arweave(), 12_000);
      const raw = item.getRaw();
      const id = await createUpload(service.url, '?chunkSize=6000');
      await blobs.fill();
      await expectContractError(await postChunk(service.url, id, 0, raw.subarray(0, 6000)), ...UNAVAILABLE);
      blobs.free();
      expect((await postChunk(service.url, id, 0, raw.subarray(0, 6000))).status).to.equal(200);

      eventsDb.pragma('query_only = ON');
      await expectContractError(await fetch(`${service.url}/chunks/arweave/-1/-1`), ...UNAVAILABLE);
      await expectContractError(await postChunk(service.url, id, 6000, raw.subarray(6000)), ...UNAVAILABLE);
      eventsDb.pragma('query_only = OFF');
      expect((await postChunk(service.url, id, 6000, raw.subarray(6000))).status).to.equal(200);
    });

    it('answers 503 to a sync finalize whose acceptance cannot be recorded, gives the bytes back to the upload, and finalizes on the next request', async function () {
      const item = await itemOfSize(signers.arweave(), 12_000);
      const id = await createUpload(service.url, '?chunkSize=6000');
      await postChunks(service.url, id, item.getRaw(), 6000);
      events.refuse((stream) => stream.startsWith('dataItem-'));
      await expectContractError(await fetch(`${service.url}/chunks/arweave/${id}/-1`, { method: 'POST' }), ...UNAVAILABLE);
      expect(await readdir(join(service.dataDir, 'blobs', 'items')).catch(() => [])).to.deep.equal([]);
      expect(chunkOffsets(await uploadFiles(service, id))).to.deep.equal([0, 6000]);
      expect(await statusOf(service, id)).to.equal('FINALIZING');

      events.refuse(undefined);
      const res = await fetch(`${service.url}/chunks/arweave/${id}/-1`, { method: 'POST' });
      expect(res.status).to.equal(200);
      expect((await res.json()).id).to.equal(item.id);
      expect(await statusOf(service, id)).to.equal('FINALIZED');
      expect(await itemBlobsWithoutAcceptance(service)).to.deep.equal([]);
    });

    it('answers 503 to a sync finalize on a full blob store and keeps the upload resumable', async function () {
      const item = await itemOfSize(signers.arweave(), 12_000);
      const id = await createUpload(service.url, '?chunkSize=6000');
      await postChunks(service.url, id, item.getRaw(), 6000);
      await blobs.fill();
      await expectContractError(await fetch(`${service.url}/chunks/arweave/${id}/-1`, { method: 'POST' }), ...UNAVAILABLE);
      // the copy that assembles the item could not be written: it is assembled again on the next request
      expect(await statusOf(service, id)).to.equal('VALIDATING');
      expect(chunkOffsets(await uploadFiles(service, id))).to.deep.equal([0, 6000]);
      blobs.free();
      expect((await fetch(`${service.url}/chunks/arweave/${id}/-1`, { method: 'POST' })).status).to.equal(200);
    });

    it('keeps an async finalize that meets a full disk resumable (never INVALID), and finalizes it once space is back', async function () {
      const item = await itemOfSize(signers.arweave(), 12_000);
      const id = await createUpload(service.url, '?chunkSize=6000');
      await postChunks(service.url, id, item.getRaw(), 6000);
      await blobs.fill();
      expect((await fetch(`${service.url}/chunks/arweave/${id}/finalize`, { method: 'POST' })).status).to.equal(202);
      await service.finalizer.idle();
      expect(await statusOf(service, id)).to.equal('VALIDATING');
      expect(chunkOffsets(await uploadFiles(service, id))).to.deep.equal([0, 6000]);

      blobs.free();
      // what the commands role's maintenance pass does every minute
      await service.finalizer.resume();
      await eventually(async () => (await statusOf(service, id)) === 'FINALIZED', Boolean, 'the upload finalized');
      expect(await itemBlobsWithoutAcceptance(service)).to.deep.equal([]);
    });
  });

  describe('the admin API', function () {
    it('answers 503 to a credit while the event store is read-only, and credits once it is writable', async function () {
      const credit = () =>
        fetch(`${service.url}/admin/accounts/${'alice'.padEnd(43, 'A')}/credit`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ winc: '1000', creditId: 'c-1' }),
        });
      eventsDb.pragma('query_only = ON');
      await expectContractError(await credit(), ...UNAVAILABLE);
      eventsDb.pragma('query_only = OFF');
      expect((await credit()).status).to.equal(200);
    });
  });
});
