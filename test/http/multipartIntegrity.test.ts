import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { expect } from 'chai';
import { DataItem } from 'arbundles';
import { startTestService, type TestService } from '../support/testService.js';
import { signers } from '../support/items.js';
import { itemOfSize } from '../support/sizedItem.js';
import { createUpload, postChunk } from '../support/multipart.js';
import { LayeredBlobStore } from '../../src/adapters/layered/layeredBlobStore.js';
import { openFsBlobStore } from '../../src/adapters/fs/blobStore.js';
import type { BlobStore } from '../../src/ports/blobStore.js';
import { runAudit } from '../../src/audit/audit.js';
import { MemoryBlobBackend } from '../mongo/memoryBlobBackend.js';
import { bytesOf } from '../blobStore/support.js';
import { eventually } from '../support/eventually.js';

/**
 * The attack of issue 17: a chunk request whose headers arrived before the finalize sends its body
 * after the receipt (or while the item is being verified). Whatever it sends, the item that got the
 * receipt keeps exactly the bytes that were verified, on every blob store.
 */

/**
 * The blob store, telling how many blobs were started under a key prefix (a chunk request writing)
 * and which keys hold a blob now (those put and not deleted since).
 */
function watched(store: BlobStore) {
  const started = new Map<string, number>();
  const live = new Set<string>();
  const proxy: BlobStore = {
    createWriter: () => store.createWriter(),
    read: (key, range) => store.read(key, range),
    stat: (key) => store.stat(key),
    list: (prefix) => store.list(prefix),
    writeAt: (key, offset, source) => {
      const prefix = key.split('/').slice(0, 2).join('/');
      started.set(prefix, (started.get(prefix) ?? 0) + 1);
      return store.writeAt(key, offset, source);
    },
    truncate: (key, size) => store.truncate(key, size),
    close: () => store.close(),
    async put(key, source) {
      const prefix = key.split('/').slice(0, 2).join('/');
      started.set(prefix, (started.get(prefix) ?? 0) + 1);
      const info = await store.put(key, source);
      live.add(key);
      return info;
    },
    async delete(key) {
      await store.delete(key);
      live.delete(key);
    },
    async deletePrefix(prefix) {
      await store.deletePrefix(prefix);
      for (const key of live) if (key.startsWith(`${prefix}/`)) live.delete(key);
    },
    async move(from, to) {
      await store.move(from, to);
      live.delete(from);
      live.add(to);
    },
  };
  return {
    store: proxy,
    startedUnder: (prefix: string) => started.get(prefix) ?? 0,
    liveUnder: (prefix: string) => [...live].filter((key) => key.startsWith(`${prefix}/`)),
  };
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** a chunk request whose headers (and `head` of its body) are sent now, the rest when asked */
function lateChunk(base: string, uploadId: string, length: number) {
  const req: ClientRequest = request(new URL(`/chunks/arweave/${uploadId}/0`, base), {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', 'content-length': String(length) },
    agent: false,
  });
  req.on('error', () => {});
  req.flushHeaders();
  const answer = (async () => {
    const [res] = (await once(req, 'response')) as [IncomingMessage];
    let body = '';
    for await (const piece of res) body += piece;
    return { status: res.statusCode, body };
  })();
  return { req, answer };
}

const stores: [string, () => Promise<BlobStore>][] = [
  ['the fs blob store', async () => openFsBlobStore({ root: `${await tmpRoot()}/blobs` })],
  ['the GridFS blob store logic (in-memory backend)', async () => new LayeredBlobStore(new MemoryBlobBackend())],
];

async function tmpRoot() {
  const { mkdtemp } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  return mkdtemp(join(tmpdir(), 'integrity-'));
}

for (const [name, open] of stores) {
  describe(`a receipted multi-part item never changes (${name})`, function () {
    this.timeout(60_000);
    let service: TestService;
    let blobs: ReturnType<typeof watched>;
    beforeEach(async () => {
      blobs = watched(await open());
      service = await startTestService({}, async () => ({ blobStore: blobs.store }));
    });
    afterEach(() => service.close());

    /** the item as stored, its status, and the audit of the whole store */
    async function expectIntact(item: DataItem) {
      const stored = await bytesOf(await service.blobStore.read(`items/${item.id}`));
      expect(sha256(stored)).to.equal(sha256(item.getRaw()));
      expect(await new DataItem(stored).isValid()).to.equal(true);
      expect((await (await fetch(`${service.url}/tx/${item.id}/status`)).json()).status).to.equal('CONFIRMED');
      const findings: unknown[] = [];
      await runAudit({ eventStore: service.eventStore, readStore: service.readStore, blobStore: service.blobStore, now: Date.now }, (f) => findings.push(f));
      expect(findings).to.deep.equal([]);
    }

    for (const [when, sentBeforeFinalize] of [
      ['after the receipt', 0],
      ['partly during the verification', 4096],
    ] as const) {
      it(`keeps the verified bytes when a chunk request started before the finalize sends its body ${when}: 409, no byte written`, async () => {
        const item = await itemOfSize(signers.arweave(), 20_000);
        const raw = item.getRaw();
        const uploadId = await createUpload(service.url);
        expect((await postChunk(service.url, uploadId, 0, raw)).status).to.equal(200);
        const garbage = Buffer.alloc(raw.length, 0x5a);

        const late = lateChunk(service.url, uploadId, raw.length);
        await eventually(() => blobs.startedUnder(`uploads/${uploadId}`) === 2, Boolean, 'the late chunk request writing');
        if (sentBeforeFinalize > 0) late.req.write(garbage.subarray(0, sentBeforeFinalize));

        const finalized = await fetch(`${service.url}/chunks/arweave/${uploadId}/-1`, { method: 'POST' });
        expect(finalized.status).to.equal(200);
        expect((await finalized.json()).id).to.equal(item.id);

        late.req.end(garbage.subarray(sentBeforeFinalize));
        expect(await late.answer).to.deep.equal({ status: 409, body: 'Upload already finalized' });
        await expectIntact(item);
      });
    }

    it('gives a later uploader of the same item its original receipt, for the same intact bytes', async () => {
      const item = await itemOfSize(signers.arweave(), 20_000);
      const raw = item.getRaw();
      const first = await createUpload(service.url);
      expect((await postChunk(service.url, first, 0, raw)).status).to.equal(200);
      const late = lateChunk(service.url, first, raw.length);
      await eventually(() => blobs.startedUnder(`uploads/${first}`) === 2, Boolean, 'the late chunk request writing');
      const receipt = (await (await fetch(`${service.url}/chunks/arweave/${first}/-1`, { method: 'POST' })).json()).data;
      late.req.end(Buffer.alloc(raw.length, 1));
      expect((await late.answer).status).to.equal(409);

      const again = await fetch(`${service.url}/tx`, { method: 'POST', body: new Uint8Array(raw) });
      expect(again.status).to.equal(202);
      expect(await again.json()).to.deep.equal(receipt);
      await expectIntact(item);
    });

    it('deletes the blob of a chunk refused after its bytes were written, and of a chunk replaced at its offset', async () => {
      const item = await itemOfSize(signers.arweave(), 20_000);
      const raw = item.getRaw();
      const uploadId = await createUpload(service.url);
      const prefix = `uploads/${uploadId}`;
      expect((await postChunk(service.url, uploadId, 0, Buffer.alloc(raw.length, 7))).status).to.equal(200);
      const [replaced] = blobs.liveUnder(prefix);
      // the recorded chunk replaced: its blob goes; the identical re-send records nothing: its blob goes
      expect((await postChunk(service.url, uploadId, 0, raw)).status).to.equal(200);
      expect((await postChunk(service.url, uploadId, 0, raw)).status).to.equal(200);
      const kept = blobs.liveUnder(prefix);
      expect(kept).to.have.length(1);
      expect(kept).to.not.include(replaced);
      expect((await service.multipart.uploads.read(uploadId))!.chunks.get(0)!.blobKey).to.equal(kept[0]);

      const late = lateChunk(service.url, uploadId, raw.length);
      await eventually(() => blobs.startedUnder(prefix) === 4, Boolean, 'the late chunk request writing');
      expect((await fetch(`${service.url}/chunks/arweave/${uploadId}/-1`, { method: 'POST' })).status).to.equal(200);
      late.req.end(raw);
      expect((await late.answer).status).to.equal(409);
      expect(blobs.liveUnder(prefix)).to.deep.equal([]);
      await expectIntact(item);
    });
  });
}
