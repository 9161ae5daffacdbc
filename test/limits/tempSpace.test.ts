import { mkdtemp, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { request, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { createLogger } from '../../src/log.js';
import { startService, type RunningService } from '../../src/service.js';
import { startGatewayInfo } from '../support/gatewayInfo.js';
import { startTestService, TEST_BLOCK_HEIGHT, testServiceConfig, type TestService } from '../support/testService.js';
import { signedItem, signers } from '../support/items.js';
import { post, postHeadersOnly, tempFiles, type Answer } from './support.js';

const BUDGET = 10_000;
const unavailable: Answer = {
  status: 503,
  statusText: 'Service unavailable',
  contentType: 'text/plain; charset=utf-8',
  body: 'Service unavailable',
  retryAfter: '5',
};

/** POSTs without a content-length (chunked), the body in 1000-byte pieces. */
async function postChunked(url: string, path: string, body: Uint8Array): Promise<Answer> {
  const req = request(new URL(path, url), { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, agent: false });
  req.on('error', () => {});
  for (let i = 0; i < body.length; i += 1000) req.write(body.subarray(i, i + 1000));
  req.end();
  const [res] = (await once(req, 'response')) as [IncomingMessage];
  let text = '';
  res.setEncoding('utf8');
  for await (const chunk of res) text += chunk;
  const retryAfter = res.headers['retry-after'];
  return {
    status: res.statusCode!,
    statusText: res.statusMessage!,
    contentType: res.headers['content-type'],
    body: text,
    ...(retryAfter === undefined ? {} : { retryAfter }),
  };
}

describe('temporary-space budget (TEMP_SPACE_BYTES, MIN_FREE_DISK_BYTES)', function () {
  this.timeout(60_000);

  describe('single uploads', () => {
    let service: TestService;
    before(async () => {
      service = await startTestService({ TEMP_SPACE_BYTES: String(BUDGET), TEMP_SPACE_PER_CLIENT_BYTES: String(BUDGET), MIN_FREE_DISK_BYTES: '0' });
    });
    after(() => service.close());

    it('answers 503 Service unavailable before reading the body when the content-length does not fit', async () => {
      expect(await postHeadersOnly(service.url, '/tx', { 'content-length': String(BUDGET + 1) })).to.deep.equal(unavailable);
      expect(await tempFiles(service.dataDir)).to.deep.equal([]);
    });

    it('answers 503 to a body without content-length as soon as it passes the budget, deleting its bytes; the next upload fits', async () => {
      const large = await signedItem(signers.ethereum(), new Uint8Array(BUDGET + 2000));
      expect(await postChunked(service.url, '/tx', large.getRaw())).to.deep.equal(unavailable);
      expect(await tempFiles(service.dataDir)).to.deep.equal([]);
      const small = await signedItem(signers.ethereum(), new Uint8Array(BUDGET - 1000));
      const ok = await postChunked(service.url, '/tx', small.getRaw());
      expect(ok.status).to.equal(200);
      expect(JSON.parse(ok.body).id).to.equal(small.id);
    });
  });

  describe('multi-part data not yet finalized, across a restart', () => {
    let dataDir: string;
    let gateway: Awaited<ReturnType<typeof startGatewayInfo>>;
    let service: RunningService | undefined;
    const start = async () => {
      const config = testServiceConfig(dataDir, gateway.url, {
        RECEIPT_SIGNER_WORKERS: '1',
        TEMP_SPACE_BYTES: String(BUDGET),
        TEMP_SPACE_PER_CLIENT_BYTES: String(BUDGET),
        MIN_FREE_DISK_BYTES: '0',
      });
      service = await startService(config, createLogger(config.logLevel));
      return service;
    };
    before(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'upload-service-'));
      gateway = await startGatewayInfo(TEST_BLOCK_HEIGHT);
    });
    after(async () => {
      await service?.stop();
      await gateway.close();
      await rm(dataDir, { recursive: true, force: true });
    });

    it('counts stored chunks of unfinished uploads, also after a restart, until the upload is finalized', async () => {
      let running = await start();
      const item = await signedItem(signers.ethereum(), new Uint8Array(6000));
      const raw = item.getRaw();
      const { id: uploadId } = await (await fetch(`${running.url}/chunks/arweave/-1/-1`)).json();
      // two chunks, the header last (as Irys sends them)
      expect((await post(running.url, `/chunks/arweave/${uploadId}/3000`, raw.subarray(3000))).status).to.equal(200);
      expect((await post(running.url, `/chunks/arweave/${uploadId}/0`, raw.subarray(0, 3000))).status).to.equal(200);
      const room = BUDGET - raw.length;
      expect(await postHeadersOnly(running.url, '/tx', { 'content-length': String(room + 1) })).to.deep.equal(unavailable);

      await running.stop();
      running = await start();
      expect(await postHeadersOnly(running.url, '/tx', { 'content-length': String(room + 1) })).to.deep.equal(unavailable);
      const fits = await signedItem(signers.ethereum(), new Uint8Array(room - 400));
      expect(fits.getRaw().length).to.be.at.most(room);
      expect((await post(running.url, '/tx', fits.getRaw())).status).to.equal(200);

      const finalized = await post(running.url, `/chunks/arweave/${uploadId}/-1`, new Uint8Array(0));
      expect(finalized.status).to.equal(200);
      expect(JSON.parse(finalized.body).id).to.equal(item.id);
      // its bytes are an accepted item now: after a restart (a fresh count) the whole budget is free
      await running.stop();
      running = await start();
      const whole = await signedItem(signers.ethereum(), new Uint8Array(BUDGET - 400));
      expect(whole.getRaw().length).to.be.at.most(BUDGET);
      expect((await post(running.url, '/tx', whole.getRaw())).status).to.equal(200);
    });
  });

  describe('free disk floor', () => {
    let service: TestService;
    before(async () => {
      service = await startTestService({ MIN_FREE_DISK_BYTES: String(2 ** 52) });
    });
    after(() => service.close());

    it('answers 503 to an upload that would leave less than MIN_FREE_DISK_BYTES free; queries still answer', async () => {
      const item = await signedItem(signers.ethereum(), 'any upload');
      expect(await post(service.url, '/tx', item.getRaw())).to.deep.equal(unavailable);
      expect((await fetch(`${service.url}/info`)).status).to.equal(200);
    });
  });
});
