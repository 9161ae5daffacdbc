import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { startTestService, type TestService } from '../support/testService.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { itemOfSize } from '../support/sizedItem.js';
import { createUpload, expectText, postChunk, postChunks } from '../support/multipart.js';
import { arweaveAccepts } from '../support/clientChecks.js';
import { uploadStream } from '../../src/domain/upload/ids.js';
import { expireUploads } from '../../src/app/multipart/expirer.js';
import { createStampAges } from '../../src/clock.js';
import { storedBlob } from '../support/storedBlob.js';
import { storedKeys } from '../support/hostileService.js';

describe('multi-part upload', function () {
  this.timeout(60_000);
  let service: TestService;
  let base: string;
  before(async () => {
    service = await startTestService();
    base = service.url;
  });
  after(() => service.close());

  it('creates uploads at both path shapes, under /v1 too, echoing chunkSize', async () => {
    for (const path of ['/chunks/arweave/-1/-1', '/chunks/-1/-1', '/v1/chunks/ethereum/-1/-1']) {
      const res = await fetch(`${base}${path}`);
      expect(res.status, path).to.equal(200);
      const body = await res.json();
      expect(body).to.have.keys(['id', 'min', 'max']);
      expect(body).to.include({ min: 2500, max: 500000000 });
      expect(body.id).to.match(/^[A-Za-z0-9_-]{24}$/);
    }
    const sized = await (await fetch(`${base}/v1/chunks/arweave/-1/-1?chunkSize=262144`)).json();
    expect(sized.chunkSize).to.equal(262144);
  });

  it('answers 400 Invalid chunk size outside [min, max]', async () => {
    for (const size of ['2499', '500000001', 'abc', '-1', '1e6']) {
      await expectText(await fetch(`${base}/chunks/arweave/-1/-1?chunkSize=${size}`), 400, 'Invalid chunk size');
    }
  });

  it('assembles chunks sent in any order and finalizes synchronously with a receipt, the same on a repeat', async () => {
    const item = await itemOfSize(signers.arweave(), 25_000);
    const raw = item.getRaw();
    const id = await createUpload(base, '?chunkSize=10000');
    await postChunks(base, id, raw, 10_000, [2, 0, 1]);
    const view = await (await fetch(`${base}/chunks/arweave/${id}/-1`)).json();
    expect(view).to.deep.equal({
      id,
      min: 2500,
      max: 500000000,
      size: 10000,
      chunks: [
        [0, 10000],
        [10000, 10000],
        [20000, 5000],
      ],
    });

    const res = await fetch(`${base}/chunks/arweave/${id}/-1`, { method: 'POST' });
    expect(res.status).to.equal(200);
    const body = await res.json();
    expect(body.id).to.equal(item.id);
    expect(body.data.id).to.equal(item.id);
    expect(await arweaveAccepts(body.data)).to.equal(true);
    const again = await fetch(`${base}/v1/chunks/arweave/${id}/-1`, { method: 'POST' });
    expect(again.status).to.equal(200);
    expect(await again.json()).to.deep.equal(body);

    const status = await (await fetch(`${base}/chunks/arweave/${id}/status`)).json();
    expect(status.status).to.equal('FINALIZED');
    expect(status.receipt).to.deep.equal(body.data);
    expect((await (await fetch(`${base}/tx/${item.id}/status`)).json()).status).to.equal('CONFIRMED');
    const stored = await storedBlob(service.dataDir, `items/${item.id}`);
    expect(Buffer.compare(stored!, raw)).to.equal(0);
    expect(await storedKeys(service.dataDir, `uploads/${id}`)).to.deep.equal([]);
  });

  it('stores an item of several chunks without copying a byte: its blob is made of the chunk files themselves', async () => {
    // chunks larger than a small blob (SMALL_BLOB_MAX_BYTES): each is a file of its own
    const item = await itemOfSize(signers.arweave(), 210_000);
    const raw = item.getRaw();
    const id = await createUpload(base, '?chunkSize=70000');
    await postChunks(base, id, raw, 70_000);
    const chunkDir = join(service.dataDir, 'blobs', 'uploads', id);
    const chunkInodes = await Promise.all((await readdir(chunkDir)).map(async (name) => (await lstat(join(chunkDir, name))).ino));
    expect(chunkInodes).to.have.length(3);

    expect((await fetch(`${base}/chunks/arweave/${id}/-1`, { method: 'POST' })).status).to.equal(200);
    const itemDir = join(service.dataDir, 'blobs', 'items', item.id);
    const parts = (await readdir(itemDir)).filter((name) => name !== '.manifest');
    const partInodes = await Promise.all(parts.map(async (name) => (await lstat(join(itemDir, name))).ino));
    expect(partInodes.sort()).to.deep.equal(chunkInodes.sort());
    // the upload's own names for them are gone; the item is the files' only name
    expect(await storedKeys(service.dataDir, `uploads/${id}`)).to.deep.equal([]);
    expect(await Promise.all(parts.map(async (name) => (await lstat(join(itemDir, name))).nlink))).to.deep.equal([1, 1, 1]);
    expect(Buffer.compare((await storedBlob(service.dataDir, `items/${item.id}`))!, raw)).to.equal(0);
    const read = await fetch(`${base}/tx/${item.id}/data`);
    expect(Buffer.compare(Buffer.from(await read.arrayBuffer()), Buffer.from(item.rawData))).to.equal(0);
  });

  it('finalizes asynchronously: 202 at once, then the status reaches FINALIZED with the receipt', async () => {
    const item = await itemOfSize(signers.ethereum(), 9_000);
    const id = await createUpload(base);
    await postChunks(base, id, item.getRaw(), 4_000);
    const res = await fetch(`${base}/v1/chunks/arweave/${id}/finalize`, { method: 'POST' });
    expect(res.status).to.equal(202);
    expect(await res.text()).to.equal('');
    await service.finalizer.idle();
    const status = await (await fetch(`${base}/chunks/arweave/${id}/status`)).json();
    expect(status.status).to.equal('FINALIZED');
    expect(status.receipt.id).to.equal(item.id);
    const repeat = await fetch(`${base}/chunks/arweave/${id}/finalize`, { method: 'POST' });
    expect(repeat.status).to.equal(200);
    expect(await repeat.json()).to.deep.equal({ id: item.id, data: status.receipt });
  });

  it('shows size as the largest chunk when none was declared, and the default before any chunk', async () => {
    const id = await createUpload(base);
    expect((await (await fetch(`${base}/chunks/arweave/${id}/-1`)).json()).size).to.equal(25_000_000);
    await postChunk(base, id, 5000, new Uint8Array(3000));
    await postChunk(base, id, 0, new Uint8Array(5000));
    expect((await (await fetch(`${base}/chunks/arweave/${id}/-1`)).json()).size).to.equal(5000);
  });

  it('replaces a chunk sent again at the same offset, and records nothing for an identical re-send', async () => {
    const item = await itemOfSize(signers.arweave(), 6_000);
    const raw = item.getRaw();
    const id = await createUpload(base);
    await postChunk(base, id, 3000, new Uint8Array(3000).fill(9));
    await postChunks(base, id, raw, 3000);
    await postChunks(base, id, raw, 3000);
    const types: string[] = [];
    for await (const e of service.eventStore.readStream(uploadStream(id))) types.push(e.type);
    expect(types).to.deep.equal(['UploadCreated', 'ChunkReceived', 'ChunkReceived', 'ChunkReceived']);
    const res = await fetch(`${base}/chunks/arweave/${id}/-1`, { method: 'POST' });
    expect(res.status).to.equal(200);
  });

  it('answers 202 Data Item Exists with the original receipt for an item stored before', async () => {
    const item = await signedItem(signers.arweave(), 'x'.repeat(5000));
    const single = await (await fetch(`${base}/tx`, { method: 'POST', body: asBody(item.getRaw()) })).json();
    const id = await createUpload(base);
    await postChunks(base, id, item.getRaw(), 2600);
    const res = await fetch(`${base}/chunks/arweave/${id}/-1`, { method: 'POST' });
    expect(res.status).to.equal(202);
    expect(res.statusText).to.equal('Data Item Exists');
    expect(await res.json()).to.deep.equal({ id: item.id, data: single });
  });

  it('answers 404 Multi-part upload not found for an unknown upload on every route', async () => {
    const unknown = 'A'.repeat(24);
    await expectText(await fetch(`${base}/chunks/arweave/${unknown}/-1`), 404, 'Multi-part upload not found');
    await expectText(await fetch(`${base}/chunks/arweave/${unknown}/status`), 404, 'Multi-part upload not found');
    await expectText(await postChunk(base, unknown, 0, new Uint8Array(10)), 404, 'Multi-part upload not found');
    await expectText(await fetch(`${base}/chunks/arweave/${unknown}/-1`, { method: 'POST' }), 404, 'Multi-part upload not found');
    await expectText(await fetch(`${base}/chunks/arweave/${unknown}/finalize`, { method: 'POST' }), 404, 'Multi-part upload not found');
  });

  it('answers 400 Invalid chunk for bad offsets, a missing or zero length, and a chunk over max', async () => {
    const id = await createUpload(base);
    for (const offset of ['-5', 'abc', '1.5', '1e3']) await expectText(await postChunk(base, id, offset, new Uint8Array(10)), 400, 'Invalid chunk');
    await expectText(await postChunk(base, id, 0, new Uint8Array(0)), 400, 'Invalid chunk');
    const chunked = new ReadableStream({ start: (c) => (c.enqueue(new Uint8Array(10)), c.close()) });
    const noLength = await fetch(`${base}/chunks/arweave/${id}/0`, { method: 'POST', body: chunked, duplex: 'half' } as RequestInit);
    await expectText(noLength, 400, 'Invalid chunk');
    const over = await rawRequest(`${base}/chunks/arweave/${id}/0`, { 'content-length': '500000001' });
    expect(over).to.deep.equal({ status: 400, body: 'Invalid chunk' });
    const pastMax = await postChunk(base, id, 2_147_483_640, new Uint8Array(10));
    await expectText(pastMax, 400, 'Invalid chunk');
  });

  it('answers 409 Upload already finalized to a chunk after finalization was asked', async () => {
    const item = await itemOfSize(signers.arweave(), 3_000);
    const id = await createUpload(base);
    await postChunks(base, id, item.getRaw(), 3000);
    expect((await fetch(`${base}/chunks/arweave/${id}/-1`, { method: 'POST' })).status).to.equal(200);
    await expectText(await postChunk(base, id, 0, item.getRaw()), 409, 'Upload already finalized');
  });

  const cases: [string, (raw: Uint8Array) => [number, Uint8Array][]][] = [
    [
      'a gap',
      (raw) => [
        [0, raw.subarray(0, 3000)],
        [4000, raw.subarray(4000)],
      ],
    ],
    [
      'an overlap',
      (raw) => [
        [0, raw.subarray(0, 3000)],
        [2500, raw.subarray(2500)],
      ],
    ],
    [
      'a corrupted byte',
      (raw) => [
        [0, raw.subarray(0, 3000)],
        [3000, flipped(raw.subarray(3000), 10)],
      ],
    ],
  ];
  for (const [name, mutate] of cases) {
    it(`answers 400 Invalid Data Item for ${name} and shows INVALID`, async () => {
      const item = await itemOfSize(signers.arweave(), 6_000);
      const id = await createUpload(base);
      for (const [offset, bytes] of mutate(item.getRaw())) expect((await postChunk(base, id, offset, bytes)).status).to.equal(200);
      await expectText(await fetch(`${base}/chunks/arweave/${id}/-1`, { method: 'POST' }), 400, 'Invalid Data Item');
      expect((await (await fetch(`${base}/chunks/arweave/${id}/status`)).json()).status).to.equal('INVALID');
      expect((await fetch(`${base}/tx/${item.id}/status`)).status).to.equal(404);
    });
  }

  it('expires an upload left unfinalized past its lifetime: its routes answer 404 and its chunks are gone', async () => {
    const id = await createUpload(base);
    await postChunk(base, id, 0, new Uint8Array(3000));
    // ages run on the monotonic clock (src/clock.ts): it is advanced, the wall clock left alone
    let monotonic = 0;
    const ages = createStampAges({ wall: () => Date.now(), monotonic: () => monotonic });
    const lifetimes = { lifetimeMs: 24 * 3_600_000, headerlessLifetimeMs: 48 * 3_600_000 };
    await service.projections.waitFor(await service.eventStore.headPosition(), 5000);
    expect(await expireUploads(service.multipart, service.readStore, lifetimes, ages)).to.equal(0);
    monotonic += 25 * 3_600_000;
    expect(await expireUploads(service.multipart, service.readStore, lifetimes, ages)).to.be.at.least(1);
    await service.projections.waitFor(await service.eventStore.headPosition(), 5000);
    await expectText(await fetch(`${base}/chunks/arweave/${id}/-1`), 404, 'Multi-part upload not found');
    await expectText(await postChunk(base, id, 3000, new Uint8Array(10)), 404, 'Multi-part upload not found');
    await expectText(await fetch(`${base}/chunks/arweave/${id}/-1`, { method: 'POST' }), 404, 'Multi-part upload not found');
    expect((await (await fetch(`${base}/chunks/arweave/${id}/status`)).json()).status).to.equal('EXPIRED');
    expect(await storedKeys(service.dataDir, `uploads/${id}`)).to.deep.equal([]);
  });
});

/** a copy with every bit of one byte flipped */
function flipped(bytes: Uint8Array, at: number): Uint8Array {
  const copy = Buffer.from(bytes);
  copy[at]! ^= 0xff;
  return copy;
}

/** a request whose headers are sent and whose body never is (what a too-large chunk looks like) */
async function rawRequest(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.flushHeaders();
  });
}
