import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { DataItem } from 'arbundles';
import { createBlobHasher, INLINE_BELOW } from '../../src/crypto/blobHasher.js';
import { dataItemStream, type DataItemId } from '../../src/domain/ids.js';
import { uploadStream } from '../../src/domain/upload/ids.js';
import type { EventStore, StreamName } from '../../src/ports/eventStore.js';
import { exited, heldHashWorkers } from '../support/heldHashWorkers.js';
import { asBody, signers } from '../support/items.js';
import { createUpload, expectText, postChunks } from '../support/multipart.js';
import { itemOfSize } from '../support/sizedItem.js';
import { startTestService, type TestService } from '../support/testService.js';

const MiB = 1024 * 1024;
const FREE = { FREE_UPLOAD_LIMIT_BYTES: String(64 * MiB) };
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

async function eventsOf(eventStore: EventStore, stream: StreamName) {
  const events: { type: string; data: Record<string, unknown> }[] = [];
  for await (const event of eventStore.readStream(stream)) events.push({ type: event.type, data: event.data as Record<string, unknown> });
  return events;
}

/** the sha256 the item's acceptance recorded */
async function acceptedSha256(service: TestService, item: DataItem) {
  const [accepted] = await eventsOf(service.eventStore, dataItemStream(item.id as DataItemId));
  expect(accepted?.type).to.equal('DataItemAccepted');
  return accepted!.data.sha256;
}

const postItem = (service: TestService, item: DataItem) =>
  fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()), headers: { 'content-type': 'application/octet-stream' } });

/** sizes on either side of the inline size, and an item of several worker pieces that is not a whole number of them */
const SIZES = [INLINE_BELOW - 1, INLINE_BELOW, INLINE_BELOW + 1, 3 * MiB + 17];

describe('the blob digest an acceptance records', function () {
  this.timeout(120_000);

  describe("with the service's own hasher", () => {
    let service: TestService;
    before(async () => (service = await startTestService(FREE)));
    after(() => service.close());

    for (const size of SIZES) {
      it(`is the SHA-256 of the raw item, a single upload of ${size} bytes`, async () => {
        const item = await itemOfSize(signers.arweave(), size);
        const res = await postItem(service, item);
        expect(res.status).to.equal(200);
        await res.arrayBuffer();
        expect(await acceptedSha256(service, item)).to.equal(sha256(item.getRaw()));
      });
    }

    // one chunk (verified where it is stored, then moved), and several (streamed into the item's blob)
    for (const [size, chunk] of [
      [INLINE_BELOW - 1, 50_000],
      [INLINE_BELOW + 1, INLINE_BELOW + 1],
      [INLINE_BELOW + 1, 40_000],
      [3 * MiB + 17, 3 * MiB + 17],
      [3 * MiB + 17, MiB],
    ] as const) {
      it(`is the SHA-256 of the raw item, its chunks hashed into it alone (no digest of their own), a multi-part upload of ${size} bytes in chunks of ${chunk}`, async () => {
        const item = await itemOfSize(signers.arweave(), size);
        const raw = item.getRaw();
        const uploadId = await createUpload(service.url, `?chunkSize=${chunk}`);
        await postChunks(service.url, uploadId, raw, chunk);
        const res = await fetch(`${service.url}/chunks/arweave/${uploadId}/-1`, { method: 'POST' });
        expect(res.status).to.equal(200);
        await res.arrayBuffer();
        expect(await acceptedSha256(service, item)).to.equal(sha256(raw));
        const chunks = (await eventsOf(service.eventStore, uploadStream(uploadId))).filter((e) => e.type === 'ChunkReceived');
        // each byte is hashed once per digest the item needs: no chunk is hashed on its own (docs/decisions.md)
        expect(chunks.map((e) => e.data.sha256)).to.deep.equal(chunks.map(() => undefined));
        expect(chunks).to.have.length(Math.ceil(size / chunk));
      });
    }
  });

  describe('when a hashing worker dies', () => {
    let service: TestService;
    let workers: ReturnType<typeof heldHashWorkers>;
    /** the next worker started dies as soon as it is given a piece */
    let dieOnFirstPiece = false;
    beforeEach(async () => {
      workers = heldHashWorkers();
      dieOnFirstPiece = false;
      const start = () => {
        const worker = workers.start();
        if (dieOnFirstPiece) {
          dieOnFirstPiece = false;
          const post = worker.postMessage.bind(worker);
          worker.postMessage = (request: unknown, transfer?: readonly ArrayBuffer[]) => {
            post(request, transfer as ArrayBuffer[]);
            void worker.terminate();
          };
        }
        return worker;
      };
      const hasher = createBlobHasher({ workers: 1, startWorker: start, log: () => {} });
      service = await startTestService(FREE, async () => ({ hasher }));
    });
    afterEach(() => service.close());

    it('answers a single upload 500 Internal server error, keeps nothing of it, and takes it again with a new worker', async () => {
      const item = await itemOfSize(signers.arweave(), 2 * MiB);
      dieOnFirstPiece = true;
      await expectText(await postItem(service, item), 500, 'Internal server error');
      expect(await eventsOf(service.eventStore, dataItemStream(item.id as DataItemId))).to.deep.equal([]);
      expect(await readdir(join(service.dataDir, 'blobs', '.tmp'))).to.deep.equal([]);

      const again = await postItem(service, item);
      expect(again.status).to.equal(200);
      await again.arrayBuffer();
      expect(await acceptedSha256(service, item)).to.equal(sha256(item.getRaw()));
      expect(workers.started).to.have.length(2);
    });

    it("answers a multi-part finalize 500 Internal server error, keeps the upload's chunks, and finalizes it when asked again", async () => {
      const item = await itemOfSize(signers.arweave(), 2 * MiB + 5);
      const raw = item.getRaw();
      const uploadId = await createUpload(service.url, `?chunkSize=${MiB}`);
      await postChunks(service.url, uploadId, raw, MiB);
      dieOnFirstPiece = true;
      // the chunks' worker is gone: the next worker started is the finalize's
      await workers.started[0]!.terminate();
      await expectText(await fetch(`${service.url}/chunks/arweave/${uploadId}/-1`, { method: 'POST' }), 500, 'Internal server error');
      expect(await eventsOf(service.eventStore, dataItemStream(item.id as DataItemId))).to.deep.equal([]);

      const again = await fetch(`${service.url}/chunks/arweave/${uploadId}/-1`, { method: 'POST' });
      expect(again.status).to.equal(200);
      expect((await again.json()).id).to.equal(item.id);
      expect(await acceptedSha256(service, item)).to.equal(sha256(raw));
    });
  });

  it('leaves no hashing worker running once the service is stopped', async () => {
    const workers = heldHashWorkers();
    const hasher = createBlobHasher({ workers: 1, startWorker: workers.start });
    const service = await startTestService(FREE, async () => ({ hasher }));
    try {
      const res = await postItem(service, await itemOfSize(signers.arweave(), MiB));
      expect(res.status).to.equal(200);
      await res.arrayBuffer();
      expect(service.hasher.running()).to.equal(1);
    } finally {
      await service.close();
    }
    expect(service.hasher.running()).to.equal(0);
    await Promise.all(workers.started.map(exited));
    expect(workers.started.map((w) => w.threadId)).to.deep.equal([-1]);
  });
});
