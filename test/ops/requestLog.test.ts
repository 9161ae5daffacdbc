import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { createLogger } from '../../src/log.js';
import { startService, type RunningService } from '../../src/service.js';
import { dataItemStream, type DataItemId } from '../../src/domain/ids.js';
import { startGatewayInfo } from '../support/gatewayInfo.js';
import { testServiceConfig } from '../support/testService.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { openFsBlobStore } from '../../src/adapters/fs/blobStore.js';
import type { BlobStore } from '../../src/ports/blobStore.js';
import { eventually } from '../support/eventually.js';

const ADMIN_TOKEN = 'ops-test-admin-token-0123456789';

describe('request log', function () {
  this.timeout(30_000);
  let service: RunningService;
  let dataDir: string;
  let gateway: Awaited<ReturnType<typeof startGatewayInfo>>;
  const lines: string[] = [];
  const records = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  const requestLines = () => records().filter((r) => r.message === 'request');
  /** the request lines of one request id: the line is written when the response has finished, maybe just after the client read it */
  const loggedFor = async (requestId: string | null) => {
    for (let i = 0; i < 100 && !requestLines().some((r) => r.requestId === requestId); i++) await new Promise((r) => setTimeout(r, 20));
    return requestLines().filter((r) => r.requestId === requestId);
  };

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'request-log-'));
    gateway = await startGatewayInfo(1_000);
    const config = testServiceConfig(dataDir, gateway.url, { RECEIPT_SIGNER_WORKERS: '1', ADMIN_TOKEN, LOG_LEVEL: 'info', SHUTDOWN_GRACE_MS: '25000' });
    service = await startService(
      config,
      createLogger(config.logLevel, (line) => lines.push(line)),
    );
  });
  after(async () => {
    await service.stop();
    await gateway.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("writes one JSON line per request whose request id is the x-request-id header and the events' correlation id", async () => {
    const item = await signedItem(signers.ethereum(), 'logged');
    const raw = item.getRaw();
    const res = await fetch(`${service.url}/v1/tx`, { method: 'POST', body: asBody(raw), headers: { 'content-type': 'application/octet-stream' } });
    expect(res.status).to.equal(200);
    const header = res.headers.get('x-request-id');
    expect(header).to.match(/^[0-9a-f-]{36}$/);

    const events = [];
    for await (const event of service.eventStore.readStream(dataItemStream(item.id as DataItemId))) events.push(event);
    expect(events.map((e) => e.type)).to.deep.equal(['DataItemAccepted']);
    expect(events[0]!.metadata.correlationId).to.equal(header);

    const logged = await loggedFor(header);
    expect(logged).to.have.length(1);
    const line = logged[0]!;
    expect(line).to.include({ level: 'info', method: 'POST', route: '/v1/tx', dataItemId: item.id, status: 200, bytesIn: raw.length, requestId: header });
    expect(line.durationMs).to.be.a('number');
    expect(line.bytesOut).to.be.greaterThan(0);
    expect(Object.keys(line).sort()).to.deep.equal(
      ['level', 'time', 'message', 'requestId', 'method', 'route', 'dataItemId', 'status', 'durationMs', 'bytesIn', 'bytesOut'].sort(),
    );
    // no payload bytes: the item's text appears nowhere in the log
    expect(lines.join('\n')).not.to.include('logged');
  });

  it('keeps a well-formed x-request-id given by the caller and answers it back', async () => {
    const res = await fetch(`${service.url}/tx/${'B'.repeat(43)}/status`, { headers: { 'x-request-id': 'caller-id-1' } });
    expect(res.status).to.equal(404);
    expect(res.headers.get('x-request-id')).to.equal('caller-id-1');
    const [line] = await loggedFor('caller-id-1');
    expect(line).to.include({ method: 'GET', route: '/tx/:id/status', dataItemId: 'B'.repeat(43), status: 404, bytesIn: 0 });
  });

  it('names the multi-part upload, and the item it became, on the lines of its requests', async () => {
    const item = await signedItem(signers.ethereum(), 'multi-part, logged');
    const created = await fetch(`${service.url}/chunks/arweave/-1/-1`, { headers: { 'x-request-id': 'create-1' } });
    const { id: uploadId } = await created.json();
    const chunk = await fetch(`${service.url}/chunks/arweave/${uploadId}/0`, {
      method: 'POST',
      body: asBody(item.getRaw()),
      headers: { 'content-type': 'application/octet-stream', 'x-request-id': 'chunk-1' },
    });
    expect(chunk.status).to.equal(200);
    const finalized = await fetch(`${service.url}/v1/chunks/arweave/${uploadId}/-1`, { method: 'POST', headers: { 'x-request-id': 'finalize-1' } });
    expect(finalized.status).to.equal(200);
    expect((await loggedFor('create-1'))[0]).to.include({ route: '/chunks/:token/-1/-1', uploadId });
    expect((await loggedFor('chunk-1'))[0]).to.include({ route: '/chunks/:token/:uploadId/:offset', uploadId });
    expect((await loggedFor('finalize-1'))[0]).to.include({ route: '/v1/chunks/:token/:uploadId/-1', uploadId, dataItemId: item.id });
    // a path that is no id names nothing
    await fetch(`${service.url}/tx/${'%3Cscript%3E'}/status`, { headers: { 'x-request-id': 'not-an-id-1' } });
    expect((await loggedFor('not-an-id-1'))[0]).to.not.have.property('dataItemId');
  });

  it('never writes the admin token, whether the bearer is right or wrong', async () => {
    const address = '0x' + 'ab'.repeat(20);
    const credit = await fetch(`${service.url}/v1/admin/accounts/${address}/credit`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', 'x-request-id': 'admin-credit-1' },
      body: JSON.stringify({ winc: '1000', reason: 'ops test' }),
    });
    expect(credit.status).to.equal(200);
    const wrong = await fetch(`${service.url}/admin/accounts/${address}`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}x`, 'x-request-id': 'admin-wrong-1' },
    });
    expect(wrong.status).to.equal(401);
    const [line] = await loggedFor('admin-credit-1');
    expect(line).to.include({ method: 'POST', route: '/v1/admin/accounts/:address/credit', status: 200 });
    // refused by the guard before any route matched
    const [refused] = await loggedFor('admin-wrong-1');
    expect(refused).to.include({ method: 'GET', route: 'unmatched', status: 401 });
    expect(lines.join('\n')).not.to.include(ADMIN_TOKEN);
    expect(lines.join('\n').toLowerCase()).not.to.include('bearer');
  });

  it('logs an upload the client gave up half-way as aborted, with the bytes that came', async () => {
    const item = await signedItem(signers.ethereum(), new Uint8Array(50_000).fill(1));
    const raw = item.getRaw();
    const uploaded = async () => {
      const text = await (await fetch(`${service.url}/metrics`)).text();
      return Number(/^upload_bytes_received_total\{kind="single"\} (\d+)$/m.exec(text)?.[1] ?? 0);
    };
    const before = await uploaded();
    const req = request(`${service.url}/tx`, {
      method: 'POST',
      headers: { 'content-length': String(raw.length), 'x-request-id': 'gave-up-1' },
    });
    req.on('error', () => {});
    req.write(raw.subarray(0, 20_000));
    // every byte sent has reached the upload handler
    expect(await eventually(uploaded, (n) => n >= before + 20_000, 'the 20000 bytes sent taken')).to.equal(before + 20_000);
    req.destroy();
    const [line] = await loggedFor('gave-up-1');
    expect(line).to.include({ method: 'POST', route: '/tx', status: 'aborted', bytesIn: 20_000 });
    // a client that leaves is no failure of the service: no error line (the request line says aborted)
    await new Promise((r) => setTimeout(r, 200));
    expect(records().filter((r) => r.level === 'error')).to.deep.equal([]);
  });

  it('logs probes of /health at debug, below the info level', async () => {
    const res = await fetch(`${service.url}/health`);
    expect(res.status).to.equal(200);
    const id = res.headers.get('x-request-id');
    // a later request's line is there, the probe's is not
    const after = await fetch(`${service.url}/info`);
    expect(await loggedFor(after.headers.get('x-request-id'))).to.have.length(1);
    expect(records().filter((r) => r.requestId === id)).to.deep.equal([]);
  });
});

describe('failure log', function () {
  this.timeout(30_000);
  let service: RunningService;
  let dataDir: string;
  let gateway: Awaited<ReturnType<typeof startGatewayInfo>>;
  const lines: string[] = [];
  const records = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

  /** the fs blob store, whose commits fail the way a bug would: a plain Error, nothing the error mapping knows */
  async function failingCommits(root: string): Promise<BlobStore> {
    const store = await openFsBlobStore({ root });
    const createWriter = store.createWriter.bind(store);
    store.createWriter = async () => {
      const writer = await createWriter();
      writer.commit = async () => {
        await writer.abort();
        throw new Error('the commit of an item blob failed unexpectedly');
      };
      return writer;
    };
    return store;
  }

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'failure-log-'));
    gateway = await startGatewayInfo(1_000);
    const config = testServiceConfig(dataDir, gateway.url, { RECEIPT_SIGNER_WORKERS: '1', LOG_LEVEL: 'info' });
    service = await startService(
      config,
      createLogger(config.logLevel, (line) => lines.push(line)),
      { blobStore: await failingCommits(join(dataDir, 'blobs')) },
    );
  });
  after(async () => {
    await service.stop();
    await gateway.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('logs an unexpected failure after the whole body was read as an error line with its stack and the request id', async () => {
    const item = await signedItem(signers.ethereum(), 'fails after its body');
    const res = await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()), headers: { 'x-request-id': 'fails-1' } });
    expect(res.status).to.equal(500);
    expect(await res.text()).to.equal('Internal server error');
    const errors = records().filter((r) => r.level === 'error');
    expect(errors).to.have.length(1);
    expect(errors[0]).to.include({ message: 'POST /tx failed', requestId: 'fails-1', status: 500, error: 'the commit of an item blob failed unexpectedly' });
    expect(errors[0]!.stack).to.be.a('string').and.to.include('commit');
  });
});
