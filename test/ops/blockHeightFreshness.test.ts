import { request } from 'node:http';
import { createServer } from 'node:net';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { savedBlockHeight, startTestService, TEST_BLOCK_HEIGHT, type TestService } from '../support/testService.js';
import { startGatewayInfo, type GatewayInfo } from '../support/gatewayInfo.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { createUpload, expectText } from '../support/multipart.js';
import type { Receipt } from '../../src/domain/receipt.js';
import type { ReadinessReport } from '../../src/http/health.js';
import type { DashboardSummary } from '../../src/queries/dashboard.js';
import { eventually } from '../support/eventually.js';

/** receipts' deadlineHeight = the height + DEADLINE_HEIGHT_OFFSET (default 200) */
const OFFSET = 200;
const HOUR = 3_600_000;

/** a URL where nothing listens: connections refused */
async function deadUrl(): Promise<string> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return `http://127.0.0.1:${port}`;
}

async function upload(service: TestService, tag: string, path = '/tx'): Promise<Response> {
  const item = await signedItem(signers.ethereum(), tag);
  return fetch(`${service.url}${path}`, { method: 'POST', body: asBody(item.getRaw()), headers: { 'content-type': 'application/octet-stream' } });
}

async function ready(service: TestService): Promise<{ status: number; report: ReadinessReport }> {
  const res = await fetch(`${service.url}/ready`);
  return { status: res.status, report: (await res.json()) as ReadinessReport };
}

const summary = async (service: TestService) => (await (await fetch(`${service.url}/dashboard/api/summary`)).json()) as DashboardSummary;

/**
 * Sends the headers of an upload declaring 10 MB and 1 KB of its body, never the rest: the answer
 * can only come before the body is read.
 */
function answerBeforeBody(url: string, path: string): Promise<{ status: number; statusMessage: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream', 'content-length': String(10 * 1024 * 1024) },
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => {
        resolve({ status: res.statusCode!, statusMessage: res.statusMessage!, body });
        req.destroy();
      });
    });
    req.on('error', reject);
    req.write(Buffer.alloc(1024, 1));
  });
}

describe('no receipt without a block height read from the gateway', function () {
  this.timeout(120_000);
  let service: TestService | undefined;
  let gateway: GatewayInfo | undefined;
  afterEach(async () => {
    await service?.close();
    await gateway?.close();
    service = undefined;
    gateway = undefined;
  });

  it('never reached (fresh DATA_DIR, gateway unreachable): uploads answer 503 before their body, /ready fails blockHeight, the dashboard says why', async () => {
    service = await startTestService({ GATEWAY_URL: await deadUrl() });

    for (const path of ['/tx', '/v1/tx', '/tx/arweave', '/v1/tx/ethereum']) {
      expect(await answerBeforeBody(service.url, path), path).to.deep.equal({ status: 503, statusMessage: 'Service unavailable', body: 'Service unavailable' });
    }
    await expectText(await upload(service, 'never reached'), 503, 'Service unavailable');
    await expectText(await fetch(`${service.url}/chunks/arweave/-1/-1`), 503, 'Service unavailable');
    await expectText(await fetch(`${service.url}/v1/chunks/-1/-1`), 503, 'Service unavailable');
    const someUpload = 'A'.repeat(43);
    await expectText(await fetch(`${service.url}/chunks/arweave/${someUpload}/-1`, { method: 'POST' }), 503, 'Service unavailable');
    await expectText(await fetch(`${service.url}/chunks/arweave/${someUpload}/finalize`, { method: 'POST' }), 503, 'Service unavailable');
    // nothing was accepted
    expect(await service.eventStore.headPosition()).to.equal(0n);

    const { status, report } = await ready(service);
    expect(status).to.equal(503);
    expect(report.failed).to.deep.equal(['blockHeight']);
    expect(report.checks.blockHeight).to.deep.equal({ ok: false, reason: 'no block height read from the gateway yet; the gateway is unreachable' });
    expect((await fetch(`${service.url}/health`)).status).to.equal(200);

    const shown = (await summary(service)).blockHeight!;
    expect(shown).to.deep.include({ height: null, readAt: null, fresh: false, maxAgeMs: 1_800_000, reachable: false });
    expect(shown.lastError).to.match(/^GET http:\/\/127\.0\.0\.1:\d+\/info failed \(ECONNREFUSED\)$/);
    expect(shown.lastErrorAt).to.be.a('string');
    // for alerts: no height ever read is an infinite age
    expect(await (await fetch(`${service.url}/metrics`)).text()).to.match(/^block_height_age_seconds \+Inf$/m);
  });

  it('reached then lost: serves on the last height while younger than BLOCK_HEIGHT_MAX_AGE_MS, then 503', async () => {
    // an age that leaves a busy machine seconds to upload once the gateway is down, and is soon over
    service = await startTestService({ BLOCK_HEIGHT_MAX_AGE_MS: '12000', BLOCK_HEIGHT_REFRESH_MS: '1000' });
    await service.gateway.down();

    const res = await upload(service, 'served on the kept height');
    expect(res.status).to.equal(200);
    expect(((await res.json()) as Receipt).deadlineHeight).to.equal(TEST_BLOCK_HEIGHT + OFFSET);
    await eventually(
      async () => (await ready(service!)).status,
      (status) => status === 503,
      'unready',
      60_000,
      100,
    );
    const { report } = await ready(service);
    expect(report.failed).to.deep.equal(['blockHeight']);
    expect(report.checks.blockHeight).to.deep.include({
      ok: false,
      height: TEST_BLOCK_HEIGHT,
      reason: 'the block height was read more than BLOCK_HEIGHT_MAX_AGE_MS ago; the gateway is unreachable',
    });
    expect(await answerBeforeBody(service.url, '/tx')).to.deep.include({ status: 503 });
    await expectText(await upload(service, 'too old now'), 503, 'Service unavailable');
    expect((await summary(service)).blockHeight).to.deep.include({ height: TEST_BLOCK_HEIGHT, fresh: false, reachable: false });
  });

  it('restarted with a fresh saved height and the gateway down: serves with that height', async () => {
    service = await startTestService({ GATEWAY_URL: await deadUrl() }, savedBlockHeight(1_234_567, Date.now() - 60_000));

    const res = await upload(service, 'saved height');
    expect(res.status).to.equal(200);
    expect(((await res.json()) as Receipt).deadlineHeight).to.equal(1_234_567 + OFFSET);
    expect((await fetch(`${service.url}/chunks/arweave/-1/-1`)).status).to.equal(200);
    const { status, report } = await ready(service);
    expect(status).to.equal(200);
    expect(report.checks.blockHeight).to.deep.include({ ok: true, height: 1_234_567 });
    expect((await summary(service)).blockHeight).to.deep.include({ height: 1_234_567, fresh: true, reachable: false });
  });

  it('restarted with a saved height older than BLOCK_HEIGHT_MAX_AGE_MS and the gateway down: 503', async () => {
    const savedAt = Date.now() - 2 * HOUR;
    service = await startTestService({ GATEWAY_URL: await deadUrl() }, savedBlockHeight(1_234_567, savedAt));

    await expectText(await upload(service, 'old saved height'), 503, 'Service unavailable');
    const { status, report } = await ready(service);
    expect(status).to.equal(503);
    expect(report.checks.blockHeight).to.deep.equal({
      ok: false,
      height: 1_234_567,
      readAt: new Date(savedAt).toISOString(),
      reason: 'the block height was read more than BLOCK_HEIGHT_MAX_AGE_MS ago; the gateway is unreachable',
    });
  });

  it('recovers: once the gateway answers, uploads are served again with its height and /ready is ok', async () => {
    gateway = await startGatewayInfo(777_000);
    await gateway.down();
    service = await startTestService({ GATEWAY_URL: gateway.url, BLOCK_HEIGHT_REFRESH_MS: '1000' });
    await expectText(await upload(service, 'before recovery'), 503, 'Service unavailable');

    await gateway.up();
    await eventually(
      async () => (await ready(service!)).status,
      (status) => status === 200,
      'ready',
      60_000,
      100,
    );
    const res = await upload(service, 'after recovery');
    expect(res.status).to.equal(200);
    expect(((await res.json()) as Receipt).deadlineHeight).to.equal(777_000 + OFFSET);
    expect((await summary(service)).blockHeight).to.deep.include({ height: 777_000, fresh: true, reachable: true, lastError: null, lastErrorAt: null });
  });
});
