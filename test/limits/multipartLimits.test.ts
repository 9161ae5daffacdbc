import { once } from 'node:events';
import { request, type IncomingMessage } from 'node:http';
import { expect } from 'chai';
import { startTestService, type TestService } from '../support/testService.js';
import { signers } from '../support/items.js';
import { itemOfSize } from '../support/sizedItem.js';
import { expectText, postChunk } from '../support/multipart.js';
import { nativeAddress } from '../../src/verify/index.js';
import { expireUploads } from '../../src/app/multipart/expirer.js';
import { createStampAges } from '../../src/clock.js';
import { uploadStream } from '../../src/domain/upload/ids.js';
import { OTHER_CLIENT, post, type Answer } from './support.js';

/**
 * What one client can hold in multi-part uploads (issue 17: no client stalls or locks out the
 * others): chunks of a useful size and a bounded number, a bounded number of open uploads, no
 * upload made by a probe, and bytes nobody is known to pay for only up to the free limit.
 */

const meta = { correlationId: 'test' };

/** GET from a chosen local address (a second client, as far as the per-client limits go) */
async function get(url: string, path: string, options: { method?: string; localAddress?: string } = {}): Promise<Answer & { allow?: string }> {
  const req = request(new URL(path, url), {
    method: options.method ?? 'GET',
    agent: false,
    ...(options.localAddress ? { localAddress: options.localAddress } : {}),
  });
  req.end();
  const [res] = (await once(req, 'response')) as [IncomingMessage];
  let body = '';
  for await (const piece of res) body += piece;
  return {
    status: res.statusCode!,
    statusText: res.statusMessage!,
    contentType: res.headers['content-type'],
    body,
    ...(res.headers.allow ? { allow: res.headers.allow } : {}),
  };
}

const created = async (service: TestService, localAddress?: string): Promise<string> => {
  const res = await get(service.url, '/chunks/arweave/-1/-1', localAddress ? { localAddress } : {});
  expect(res.status, res.body).to.equal(200);
  return JSON.parse(res.body).id;
};

async function eventTypes(service: TestService, uploadId: string): Promise<string[]> {
  const types: string[] = [];
  for await (const e of service.eventStore.readStream(uploadStream(uploadId))) types.push(e.type);
  return types;
}

describe('multi-part upload limits', function () {
  this.timeout(60_000);

  describe('chunks (min 2500 bytes but the last, MAX_CHUNKS_PER_UPLOAD)', () => {
    let service: TestService;
    before(async () => {
      service = await startTestService({ MAX_CHUNKS_PER_UPLOAD: '4' });
    });
    after(() => service.close());

    it('answers 400 Invalid chunk to a second chunk shorter than 2500 bytes, and to a chunk after the short last one', async () => {
      const id = await created(service);
      expect((await postChunk(service.url, id, 5000, new Uint8Array(1))).status).to.equal(200);
      await expectText(await postChunk(service.url, id, 2500, new Uint8Array(2499)), 400, 'Invalid chunk');
      await expectText(await postChunk(service.url, id, 5001, new Uint8Array(2500)), 400, 'Invalid chunk');
      // the short chunk replaced at its own offset, and full chunks before it: taken
      expect((await postChunk(service.url, id, 5000, new Uint8Array(2))).status).to.equal(200);
      expect((await postChunk(service.url, id, 0, new Uint8Array(2500))).status).to.equal(200);
      expect((await postChunk(service.url, id, 2500, new Uint8Array(2500))).status).to.equal(200);
      expect(await eventTypes(service, id)).to.deep.equal(['UploadCreated', 'ChunkReceived', 'ChunkReceived', 'ChunkReceived', 'ChunkReceived']);
    });

    it('answers 400 Invalid chunk to a short chunk with chunks after it', async () => {
      const id = await created(service);
      expect((await postChunk(service.url, id, 2500, new Uint8Array(2500))).status).to.equal(200);
      await expectText(await postChunk(service.url, id, 0, new Uint8Array(100)), 400, 'Invalid chunk');
    });

    it('answers 400 Invalid chunk past MAX_CHUNKS_PER_UPLOAD chunks; replacing a chunk still works', async () => {
      const id = await created(service);
      for (const offset of [0, 2500, 5000, 7500]) expect((await postChunk(service.url, id, offset, new Uint8Array(2500))).status).to.equal(200);
      await expectText(await postChunk(service.url, id, 10_000, new Uint8Array(2500)), 400, 'Invalid chunk');
      expect((await postChunk(service.url, id, 7500, new Uint8Array(2500).fill(1))).status).to.equal(200);
      expect((await eventTypes(service, id)).filter((t) => t === 'ChunkReceived')).to.have.length(5);
    });

    it('finalizes an item sent in full chunks and a short last one', async () => {
      const item = await itemOfSize(signers.arweave(), 7_100);
      const raw = item.getRaw();
      const id = await created(service);
      for (const offset of [5000, 0, 2500]) expect((await postChunk(service.url, id, offset, raw.subarray(offset, offset + 2500))).status).to.equal(200);
      const res = await fetch(`${service.url}/chunks/arweave/${id}/-1`, { method: 'POST' });
      expect(res.status).to.equal(200);
      expect((await res.json()).id).to.equal(item.id);
    });
  });

  describe('upload creation (MAX_OPEN_UPLOADS_PER_CLIENT, HEAD, the disk floor)', () => {
    let service: TestService;
    before(async () => {
      service = await startTestService({ MAX_OPEN_UPLOADS_PER_CLIENT: '3' });
    });
    after(() => service.close());

    it('answers 405 Method Not Allowed to HEAD on the creation routes, creating nothing', async () => {
      const before = await service.eventStore.headPosition();
      for (const path of ['/chunks/-1/-1', '/chunks/arweave/-1/-1', '/v1/chunks/arweave/-1/-1']) {
        const res = await get(service.url, path, { method: 'HEAD' });
        expect({ status: res.status, statusText: res.statusText, allow: res.allow }, path).to.deep.equal({
          status: 405,
          statusText: 'Method Not Allowed',
          allow: 'GET',
        });
      }
      expect(await service.eventStore.headPosition()).to.equal(before);
    });

    it('answers 429 Too Many Requests to a client holding MAX_OPEN_UPLOADS_PER_CLIENT open uploads, others unaffected, and again once one ends', async () => {
      const ids = await Promise.all([0, 1, 2, 3, 4].map(() => get(service.url, '/chunks/arweave/-1/-1')));
      // created at once: the ones racing past the limit are refused too
      expect(ids.map((r) => r.status).sort()).to.deep.equal([200, 200, 200, 429, 429]);
      const refused = ids.find((r) => r.status === 429)!;
      expect({ statusText: refused.statusText, body: refused.body }).to.deep.equal({ statusText: 'Too Many Requests', body: 'Too Many Requests' });
      await created(service, OTHER_CLIENT);

      const open = ids.filter((r) => r.status === 200).map((r) => JSON.parse(r.body).id as string);
      const item = await itemOfSize(signers.arweave(), 3_000);
      expect((await postChunk(service.url, open[0]!, 0, item.getRaw())).status).to.equal(200);
      expect((await fetch(`${service.url}/chunks/arweave/${open[0]}/-1`, { method: 'POST' })).status).to.equal(200);
      await created(service);
      expect((await get(service.url, '/chunks/arweave/-1/-1')).status).to.equal(429);
    });

    it('answers 503 Service unavailable to a creation while the disk is below MIN_FREE_DISK_BYTES', async () => {
      const low = await startTestService({ MIN_FREE_DISK_BYTES: String(2 ** 52) });
      try {
        const res = await get(low.url, '/chunks/arweave/-1/-1');
        expect({ status: res.status, body: res.body }).to.deep.equal({ status: 503, body: 'Service unavailable' });
        expect(await low.eventStore.headPosition()).to.equal(0n);
      } finally {
        await low.close();
      }
    });
  });

  describe('bytes nobody is known to pay for (FREE_UPLOAD_LIMIT_BYTES, HEADERLESS_UPLOAD_*)', () => {
    let service: TestService;
    beforeEach(async () => {
      service = await startTestService({
        FREE_UPLOAD_LIMIT_BYTES: '5000',
        PRICE_WINC_PER_BYTE: '1',
        HEADERLESS_UPLOAD_BYTES_PER_CLIENT: '5000',
        HEADERLESS_UPLOAD_LIFETIME_MS: '60000',
      });
    });
    afterEach(() => service.close());

    async function credit(address: string, winc: bigint) {
      const { position } = await service.accounts.execute({ type: 'Credit', data: { address, winc, creditId: address, now: Date.now() } }, meta);
      await service.projections.waitFor(position!, 5000);
    }

    it("answers 402 to chunks with no header chunk past the free limit and the client's allowance; the header chunk lets them in", async () => {
      const item = await itemOfSize(signers.ethereum(), 14_000);
      const raw = item.getRaw();
      await credit(nativeAddress(3, item.rawOwner), 20_000n);
      const id = await created(service);
      const at = (offset: number) => raw.subarray(offset, offset + 3500);
      // 3500 bytes: within the free limit; 7000: 2000 past it, within the allowance (5000); 10500: 5500 past it
      expect((await postChunk(service.url, id, 3500, at(3500))).status).to.equal(200);
      expect((await postChunk(service.url, id, 7000, at(7000))).status).to.equal(200);
      await expectText(await postChunk(service.url, id, 10_500, at(10_500)), 402, 'Insufficient balance');
      // another upload of the same client: its own free limit, then what is left of the allowance (3000)
      const other = await created(service);
      expect((await postChunk(service.url, other, 2500, new Uint8Array(5000))).status).to.equal(200);
      expect((await postChunk(service.url, other, 7500, new Uint8Array(2500))).status).to.equal(200);
      await expectText(await postChunk(service.url, other, 10_000, new Uint8Array(2500)), 402, 'Insufficient balance');
      // the header names a payer who can pay: the rest comes in
      expect((await postChunk(service.url, id, 0, at(0))).status).to.equal(200);
      expect((await postChunk(service.url, id, 10_500, at(10_500))).status).to.equal(200);
      const res = await fetch(`${service.url}/chunks/arweave/${id}/-1`, { method: 'POST' });
      expect(res.status).to.equal(200);
      expect((await res.json()).data.winc).to.equal('14000');
    });

    it('expires an upload with no header chunk HEADERLESS_UPLOAD_LIFETIME_MS after its last chunk, and not one whose header arrived', async () => {
      const item = await itemOfSize(signers.ethereum(), 6_000);
      const headerless = await created(service);
      expect((await postChunk(service.url, headerless, 3000, item.getRaw().subarray(3000))).status).to.equal(200);
      const headed = await created(service);
      expect((await postChunk(service.url, headed, 0, item.getRaw().subarray(0, 3000))).status).to.equal(200);
      await service.projections.waitFor(await service.eventStore.headPosition(), 5000);

      const lifetimes = { lifetimeMs: 86_400_000, headerlessLifetimeMs: 60_000 };
      // ages run on the monotonic clock (src/clock.ts): it is advanced, the wall clock left alone
      let monotonic = 0;
      const ages = createStampAges({ wall: () => Date.now(), monotonic: () => monotonic });
      expect(await expireUploads(service.multipart, service.readStore, lifetimes, ages)).to.equal(0);
      monotonic += 30_000;
      expect(await expireUploads(service.multipart, service.readStore, lifetimes, ages)).to.equal(0);
      monotonic += 31_000;
      expect(await expireUploads(service.multipart, service.readStore, lifetimes, ages)).to.equal(1);
      expect((await eventTypes(service, headerless)).at(-1)).to.equal('UploadExpired');
      expect((await eventTypes(service, headed)).at(-1)).to.equal('ChunkReceived');
    });
  });

  describe('temporary space per client (TEMP_SPACE_PER_CLIENT_BYTES)', () => {
    let service: TestService;
    before(async () => {
      service = await startTestService({ TEMP_SPACE_BYTES: '1000000', TEMP_SPACE_PER_CLIENT_BYTES: '10000', MIN_FREE_DISK_BYTES: '0' });
    });
    after(() => service.close());

    it('answers 429 to a client whose uploads at rest and in flight would pass its share, while another client is served', async () => {
      const id = await created(service);
      for (const offset of [0, 2500, 5000]) expect((await postChunk(service.url, id, offset, new Uint8Array(2500))).status).to.equal(200);
      // 7500 bytes at rest: 3000 more do not fit this client's 10000
      const item = await itemOfSize(signers.arweave(), 3_000);
      const refused = await post(service.url, '/tx', item.getRaw());
      expect(refused).to.deep.equal({
        status: 429,
        statusText: 'Too Many Requests',
        contentType: 'text/plain; charset=utf-8',
        body: 'Too Many Requests',
        retryAfter: '1',
      });
      const other = await post(service.url, '/tx', item.getRaw(), { localAddress: OTHER_CLIENT });
      expect(other.status).to.equal(200);
      // the upload ends: its bytes are no longer held
      let monotonic = 0;
      const ages = createStampAges({ wall: () => Date.now(), monotonic: () => monotonic });
      const lifetimes = { lifetimeMs: 86_400_000, headerlessLifetimeMs: 3_600_000 };
      expect(await expireUploads(service.multipart, service.readStore, lifetimes, ages)).to.equal(0);
      monotonic += 2 * 86_400_000;
      expect(await expireUploads(service.multipart, service.readStore, lifetimes, ages)).to.equal(1);
      const again = await itemOfSize(signers.arweave(), 3_000);
      expect((await post(service.url, '/tx', again.getRaw())).status).to.equal(200);
    });
  });
});
