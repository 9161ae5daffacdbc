import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataItem } from 'arbundles';
import { createBlobSweep, type BlobSweepDeps } from '../../src/app/blobSweep.js';
import { acceptDataItem } from '../../src/app/acceptance/acceptDataItem.js';
import { receiveDataItem } from '../../src/app/acceptance/receiveDataItem.js';
import type { DataItemId } from '../../src/domain/ids.js';
import { newChunkKey } from '../../src/domain/upload/ids.js';
import { createLogger } from '../../src/log.js';
import type { EventStore } from '../../src/ports/eventStore.js';
import { startService, type RunningService } from '../../src/service.js';
import { runAudit } from '../../src/audit/audit.js';
import type { Finding } from '../../src/audit/types.js';
import { kindsAndIds } from '../audit/support.js';
import { bytesOf, piecesOf } from '../blobStore/support.js';
import { eventually } from '../support/eventually.js';
import { startGatewayInfo } from '../support/gatewayInfo.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { createUpload, postChunks } from '../support/multipart.js';
import { itemOfSize } from '../support/sizedItem.js';
import { startTestService, testServiceConfig, type TestService } from '../support/testService.js';
import { mongoTarget, testDatabases } from '../mongo/server.js';
import { DataItemRepository } from '../../src/app/acceptance/dataItems.js';

const GRACE_MS = 60_000;
/** over SMALL_BLOB_MAX_BYTES (64 KiB): a file of the fs tier, not a row */
const FILE_SIZED = 100_000;

type Stores = Pick<RunningService, 'url' | 'eventStore' | 'readStore' | 'blobStore'>;

/** the audit's findings, every blob judged however young, sorted by kind then id */
async function auditFindings(service: Stores): Promise<Finding[]> {
  const findings: Finding[] = [];
  const { eventStore, readStore, blobStore } = service;
  await runAudit({ eventStore, readStore, blobStore, blobGraceMs: 0, now: Date.now }, (finding) => findings.push(finding));
  return findings.sort((a, b) => a.kind.localeCompare(b.kind) || a.id.localeCompare(b.id));
}

async function uploaded(url: string, item: DataItem): Promise<void> {
  const res = await fetch(`${url}/tx`, { method: 'POST', body: asBody(item.getRaw()) });
  expect(res.status, `upload of ${item.id}: ${await res.text()}`).to.equal(200);
}

/** an item uploaded in chunks and finalized, whose chunks' deletion a crash then cut (they are back) */
async function finalizedWithChunksLeft(service: Stores, item: DataItem): Promise<{ uploadId: string; keys: string[] }> {
  const uploadId = await createUpload(service.url);
  await postChunks(service.url, uploadId, item.getRaw(), 3000);
  const res = await fetch(`${service.url}/chunks/arweave/${uploadId}/-1`, { method: 'POST' });
  expect(res.status, await res.text()).to.equal(200);
  const keys = [newChunkKey(uploadId, 0), newChunkKey(uploadId, 3000)];
  for (const key of keys) await service.blobStore.put(key, piecesOf(randomBytes(3000)));
  return { uploadId, keys };
}

/** what a crash leaves and what it must not touch: accepted items (a row, a file, a multi-part one) and orphans of each kind */
async function crashLeftovers(service: Stores) {
  const accepted = [await signedItem(signers.arweave(), 'a row'), await itemOfSize(signers.ethereum(), FILE_SIZED)];
  for (const item of accepted) await uploaded(service.url, item);
  const chunked = await itemOfSize(signers.arweave(), 5000);
  const upload = await finalizedWithChunksLeft(service, chunked);
  accepted.push(chunked);
  // bytes committed under the item's key, then the kill before DataItemAccepted: a row and a file
  const unaccepted = [await signedItem(signers.ethereum(), 'never accepted'), await itemOfSize(signers.arweave(), FILE_SIZED)];
  for (const item of unaccepted) await service.blobStore.put(`items/${item.id}`, piecesOf(item.getRaw()));
  const orphanKeys = [...unaccepted.map((item) => `items/${item.id}`), ...upload.keys];
  return { accepted, unaccepted, upload, orphanKeys };
}

const orphanFindings = (unaccepted: DataItem[], uploadId: string) =>
  [...unaccepted.map((item) => item.id), uploadId, uploadId].sort((a, b) => a.localeCompare(b)).map((id) => ({ kind: 'blob-orphan', id }));

/** every accepted item answers its payload over GET /:id, and its stored bytes are the ones uploaded */
async function expectIntact(service: Stores, items: DataItem[]): Promise<void> {
  for (const item of items) {
    const res = await fetch(`${service.url}/${item.id}`);
    expect(res.status, item.id).to.equal(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(item.rawData), item.id).to.equal(true);
    expect((await bytesOf(await service.blobStore.read(`items/${item.id}`))).equals(item.getRaw()), item.id).to.equal(true);
  }
}

const present = async (service: Stores, key: string) => (await service.blobStore.stat(key)) !== undefined;

/** the blob stores the service runs with: the embedded one (files and rows of the small-blob file), and GridFS */
const PROFILES = [
  { name: 'the fs store (files and small-blob rows)', gridfs: false },
  { name: `GridFS (${mongoTarget})`, gridfs: true },
];

describe('orphan blob sweep', function () {
  this.timeout(60_000);

  for (const profile of PROFILES)
    describe(`a pass, on the clocks it is given, over ${profile.name}`, () => {
      const databases = testDatabases();
      let database: string | undefined;
      let service: TestService;
      /** how far the sweep's wall clock is ahead of the real one (blobs' times are the real one's) */
      let wallAhead: number;
      let monotonic: number;
      let logged: { level: string; message: string; fields: Record<string, unknown> | undefined }[];

      before(async () => {
        if (profile.gridfs) await databases.start();
      });
      after(() => databases.close());
      beforeEach(async () => {
        database = profile.gridfs ? databases.fresh() : undefined;
        const stores: Record<string, string> = database
          ? { READ_STORE: 'mongo', BLOB_STORE: 'gridfs', MONGO_URL: databases.url(), MONGO_DATABASE: database }
          : {};
        service = await startTestService({ BLOB_SWEEP: 'false', ...stores });
        wallAhead = 0;
        monotonic = 0;
        logged = [];
      });
      afterEach(async () => {
        await service.close();
        if (database) await databases.drop(database);
      });

      const sweepOf = (deps: Partial<BlobSweepDeps> = {}) =>
        createBlobSweep({
          eventStore: service.eventStore,
          blobStore: service.blobStore,
          graceMs: GRACE_MS,
          now: () => Date.now() + wallAhead,
          monotonic: () => monotonic,
          log: {
            info: (message, fields) => logged.push({ level: 'info', message, fields }),
            debug: (message, fields) => logged.push({ level: 'debug', message, fields }),
          },
          ...deps,
        });

      it('removes what a crash left once a pass saw it orphaned a grace period before, which the audit named, and keeps every accepted item', async () => {
        const { accepted, unaccepted, upload, orphanKeys } = await crashLeftovers(service);
        const sweep = sweepOf();
        wallAhead = 2 * GRACE_MS;

        expect(await sweep.pass()).to.deep.equal({ listed: 7, young: 0, orphans: 4, removed: 0, foreign: 0 });
        expect(kindsAndIds(await auditFindings(service))).to.deep.equal(orphanFindings(unaccepted, upload.uploadId));

        monotonic += GRACE_MS;
        expect(await sweep.pass()).to.deep.equal({ listed: 7, young: 0, orphans: 4, removed: 4, foreign: 0 });
        for (const key of orphanKeys) expect(await present(service, key), key).to.equal(false);
        expect(await auditFindings(service)).to.deep.equal([]);
        await expectIntact(service, accepted);

        // one line per pass with its counts; each removed blob at debug
        expect(logged.filter((l) => l.level === 'info')).to.deep.equal([
          { level: 'info', message: 'orphan blob sweep', fields: { listed: 7, young: 0, orphans: 4, removed: 0, foreign: 0, waiting: 4, graceMs: GRACE_MS } },
          { level: 'info', message: 'orphan blob sweep', fields: { listed: 7, young: 0, orphans: 4, removed: 4, foreign: 0, waiting: 0, graceMs: GRACE_MS } },
        ]);
        expect(
          logged
            .filter((l) => l.level === 'debug')
            .map((l) => l.fields!.key)
            .sort(),
        ).to.deep.equal([...orphanKeys].sort());
      });

      it('keeps a blob changed within the grace period by the wall clock, however long ago a pass saw it (the wall clock stepped back)', async () => {
        const item = await signedItem(signers.arweave());
        await service.blobStore.put(`items/${item.id}`, piecesOf(item.getRaw()));
        const sweep = sweepOf();
        wallAhead = GRACE_MS - 5_000;
        expect(await sweep.pass()).to.deep.equal({ listed: 1, young: 1, orphans: 0, removed: 0, foreign: 0 });
        monotonic += 10 * GRACE_MS;
        expect(await sweep.pass()).to.deep.equal({ listed: 1, young: 1, orphans: 0, removed: 0, foreign: 0 });
        expect(await present(service, `items/${item.id}`)).to.equal(true);
      });

      it('keeps a blob a wall-clock step made old until a pass of this process saw it orphaned a grace period before by the monotonic clock', async () => {
        const item = await signedItem(signers.arweave());
        await service.blobStore.put(`items/${item.id}`, piecesOf(item.getRaw()));
        wallAhead = 30 * 86_400_000;
        // a pass of another process (or of this one before a restart) remembers nothing for this one
        expect(await sweepOf().pass()).to.deep.equal({ listed: 1, young: 0, orphans: 1, removed: 0, foreign: 0 });
        const sweep = sweepOf();
        expect(await sweep.pass()).to.deep.equal({ listed: 1, young: 0, orphans: 1, removed: 0, foreign: 0 });
        monotonic += GRACE_MS - 1;
        expect(await sweep.pass()).to.deep.equal({ listed: 1, young: 0, orphans: 1, removed: 0, foreign: 0 });
        expect(await present(service, `items/${item.id}`)).to.equal(true);
        monotonic += 1;
        expect(await sweep.pass()).to.deep.equal({ listed: 1, young: 0, orphans: 1, removed: 1, foreign: 0 });
        expect(await present(service, `items/${item.id}`)).to.equal(false);
      });

      it('leaves a key the service never writes to the operator, whom the audit tells', async () => {
        for (const key of ['items/not-an-item-id', 'uploads/not-an-upload-id/0']) await service.blobStore.put(key, piecesOf(randomBytes(10)));
        wallAhead = 2 * GRACE_MS;
        const sweep = sweepOf();
        await sweep.pass();
        monotonic += GRACE_MS;
        expect(await sweep.pass()).to.deep.equal({ listed: 2, young: 0, orphans: 0, removed: 0, foreign: 2 });
        expect(kindsAndIds(await auditFindings(service))).to.deep.equal([
          { kind: 'blob-orphan', id: 'items/not-an-item-id' },
          { kind: 'blob-orphan', id: 'uploads/not-an-upload-id/0' },
        ]);
      });

      it('waits a grace period again for a blob written anew since a pass saw it', async () => {
        const key = `items/${(await signedItem(signers.arweave())).id}`;
        await service.blobStore.put(key, piecesOf(randomBytes(100)));
        wallAhead = 2 * GRACE_MS;
        const sweep = sweepOf();
        await sweep.pass();
        await service.blobStore.put(key, piecesOf(randomBytes(200)));
        monotonic += GRACE_MS;
        expect(await sweep.pass()).to.deep.equal({ listed: 1, young: 0, orphans: 1, removed: 0, foreign: 0 });
        monotonic += GRACE_MS;
        expect(await sweep.pass()).to.deep.equal({ listed: 1, young: 0, orphans: 1, removed: 1, foreign: 0 });
      });

      it('never removes the bytes of an item whose acceptance this process has in flight: it waits for it, then finds the item accepted', async () => {
        const item = await itemOfSize(signers.arweave(), FILE_SIZED);
        const stream = `dataItem-${item.id}`;
        let openAppend!: () => void;
        const appendHeld = new Promise<void>((resolve) => (openAppend = resolve));
        const order: string[] = [];
        const append: EventStore['append'] = async (...args) => {
          if (args[0] === stream) {
            order.push('append starts');
            await appendHeld;
          }
          const appended = await service.eventStore.append(...args);
          if (args[0] === stream) order.push('append settles');
          return appended;
        };
        // the service's event store, but for the item's append, held until the test lets it go
        const held = new Proxy(service.eventStore, {
          get: (target, property) => {
            if (property === 'append') return append;
            const value: unknown = Reflect.get(target, property, target);
            return typeof value === 'function' ? value.bind(target) : value;
          },
        });
        const received = await receiveDataItem([item.getRaw()], { blobStore: service.blobStore, maxSize: 1024 * 1024 });
        const acceptance = acceptDataItem(
          received,
          { token: 'arweave', ctx: { requestId: 'in-flight' } },
          {
            ...service.multipart.accept,
            eventStore: held,
            items: new DataItemRepository(held),
          },
        );
        await eventually(() => order.includes('append starts'), Boolean, 'the acceptance committed its bytes and appends');

        // the sweep reads the item's stream before it decides, and again (alone with this process's acceptances of it) before it deletes
        let judged = 0;
        const reads: EventStore['readStream'] = (name, options) => {
          const read = service.eventStore.readStream(name, options);
          if (name !== stream) return read;
          return (async function* () {
            order.push('sweep reads the stream');
            yield* read;
            // the second pass's first look: the acceptance may go on (if the sweep waits for it, it is waiting now)
            if (++judged === 2) openAppend();
          })();
        };
        const sweep = sweepOf({ eventStore: { readStream: reads } });
        wallAhead = 2 * GRACE_MS;
        expect(await sweep.pass()).to.deep.equal({ listed: 1, young: 0, orphans: 1, removed: 0, foreign: 0 });
        monotonic += GRACE_MS;
        expect(await sweep.pass()).to.deep.equal({ listed: 1, young: 0, orphans: 1, removed: 0, foreign: 0 });
        expect((await acceptance).kind).to.equal('accepted');

        expect(order).to.deep.equal(['append starts', 'sweep reads the stream', 'sweep reads the stream', 'append settles', 'sweep reads the stream']);
        expect((await service.items.read(item.id)).status).to.equal('accepted');
        expect((await bytesOf(await service.blobStore.read(`items/${item.id}`))).equals(item.getRaw())).to.equal(true);
      });
    });

  describe('run by the service', () => {
    let dataDir: string;
    let gateway: Awaited<ReturnType<typeof startGatewayInfo>>;
    let running: RunningService | undefined;
    const start = async (env: Record<string, string>) => {
      const config = testServiceConfig(dataDir, gateway.url, env);
      running = await startService(config, createLogger(config.logLevel));
      return running;
    };

    beforeEach(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'blob-sweep-'));
      gateway = await startGatewayInfo(1_000);
    });
    afterEach(async () => {
      await running?.stop();
      running = undefined;
      await gateway.close();
      await rm(dataDir, { recursive: true, force: true });
    });

    it('removes after a restart what a crash left (the audit names nothing more) and keeps every accepted item', async () => {
      const first = await start({ BLOB_SWEEP: 'false' });
      const { accepted, unaccepted, upload, orphanKeys } = await crashLeftovers(first);
      expect(kindsAndIds(await auditFindings(first))).to.deep.equal(orphanFindings(unaccepted, upload.uploadId));
      await first.stop();
      running = undefined;

      const second = await start({ BLOB_SWEEP_GRACE_MS: '1000', BLOB_SWEEP_INTERVAL_MS: '100' });
      await eventually(
        async () => {
          for (const key of orphanKeys) if (await present(second, key)) return false;
          return true;
        },
        Boolean,
        'the orphans removed',
      );
      expect(await auditFindings(second)).to.deep.equal([]);
      await expectIntact(second, accepted);
      const metrics = await (await fetch(`${second.url}/metrics`)).text();
      expect(metrics).to.include('orphan_blobs_removed_total{prefix="items"} 2\n');
      expect(metrics).to.include('orphan_blobs_removed_total{prefix="uploads"} 2\n');
    });
  });
});
