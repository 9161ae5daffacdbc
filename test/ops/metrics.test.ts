import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { savedBlockHeight, startTestService, type TestService } from '../support/testService.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { createUpload, postChunks } from '../support/multipart.js';
import { createMetrics } from '../../src/metrics/metrics.js';
import { instrumentGateway } from '../../src/metrics/instrument.js';
import { liveBundlesByState } from '../../projections/liveBundles.js';
import { createArweaveGateway } from '../../src/adapters/gateway/arweaveGateway.js';
import { openSqliteReadStore } from '../../src/adapters/sqlite/readStore.js';
import { collectionOf, liveBundlesProjection } from '../../projections/index.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition (comments skipped). */
function samples(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!m) throw new Error(`not a sample line: ${line}`);
      const labels = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1]!, l[2]!]));
      return { name: m[1]!, labels, value: Number(m[3]) };
    });
}

/** the value of one series, undefined when absent */
const valueOf = (all: Sample[], name: string, labels: Record<string, string> = {}) =>
  all.find((s) => s.name === name && JSON.stringify(Object.entries(s.labels).sort()) === JSON.stringify(Object.entries(labels).sort()))?.value;

async function deadUrl(): Promise<string> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return `http://127.0.0.1:${port}`;
}

describe('GET /metrics', function () {
  this.timeout(60_000);
  let service: TestService;
  before(async () => {
    // a gateway that is not there: the block height refresh at start fails once; the service signs
    // receipts with the height it saved a minute ago
    service = await startTestService({ GATEWAY_URL: await deadUrl() }, savedBlockHeight(1_000, Date.now() - 60_000));
  });
  after(() => service.close());

  const scrape = async () => {
    const res = await fetch(`${service.url}/metrics`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('text/plain; version=0.0.4; charset=utf-8');
    return samples(await res.text());
  };

  it('counts requests by method, route pattern and status, uploaded bytes, verifications and signatures', async () => {
    const item = await signedItem(signers.ethereum(), 'metrics');
    const raw = item.getRaw();
    const octets = { 'content-type': 'application/octet-stream' };
    expect((await fetch(`${service.url}/v1/tx`, { method: 'POST', body: asBody(raw), headers: octets })).status).to.equal(200);
    expect((await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(raw), headers: octets })).status).to.equal(202);
    expect((await fetch(`${service.url}/tx/${item.id}/status`)).status).to.equal(200);
    const unknown = 'A'.repeat(43);
    expect((await fetch(`${service.url}/v1/tx/${unknown}/status`)).status).to.equal(404);
    // routes match whatever the case: still one label
    expect((await fetch(`${service.url}/V1/tx/${unknown}/status`)).status).to.equal(404);
    expect((await fetch(`${service.url}/v1/tx/arweave`, { method: 'POST', body: 'junk', headers: octets })).status).to.equal(400);
    expect((await fetch(`${service.url}/no/such/route`)).status).to.equal(404);

    const big = await signedItem(signers.ethereum(), new Uint8Array(9000).fill(7));
    const uploadId = await createUpload(service.url);
    await postChunks(service.url, uploadId, big.getRaw(), 4000);
    expect((await fetch(`${service.url}/chunks/arweave/${uploadId}/-1`, { method: 'POST' })).status).to.equal(200);

    const all = await scrape();
    const requests = (method: string, route: string, status: string) => valueOf(all, 'http_requests_total', { method, route, status });
    expect(requests('POST', '/v1/tx', '200')).to.equal(1);
    expect(requests('POST', '/tx', '202')).to.equal(1);
    expect(requests('GET', '/tx/:id/status', '200')).to.equal(1);
    expect(requests('GET', '/v1/tx/:id/status', '404')).to.equal(2);
    expect(requests('POST', '/v1/tx/:token', '400')).to.equal(1);
    expect(requests('GET', 'unmatched', '404')).to.equal(1);
    expect(requests('GET', '/chunks/:token/-1/-1', '200')).to.equal(1);
    expect(requests('POST', '/chunks/:token/:uploadId/:offset', '200')).to.equal(3);
    expect(requests('POST', '/chunks/:token/:uploadId/-1', '200')).to.equal(1);
    // no raw path (an id) is ever a label value
    expect(all.filter((s) => Object.values(s.labels).some((v) => v.includes(item.id) || v.includes(uploadId)))).to.deep.equal([]);
    expect(valueOf(all, 'http_request_duration_seconds_count', { method: 'POST', route: '/v1/tx' })).to.equal(1);

    expect(valueOf(all, 'upload_bytes_received_total', { kind: 'single' })).to.equal(2 * raw.length + 'junk'.length);
    expect(valueOf(all, 'upload_bytes_received_total', { kind: 'chunk' })).to.equal(big.getRaw().length);
    // the re-sent item is verified too (before it is found to exist); junk never reaches the signature check
    expect(valueOf(all, 'data_item_verify_duration_seconds_count', { source: 'stream' })).to.equal(2);
    // the chunks were verified as they came in: the finalize only finished that, reading no chunk again
    expect(valueOf(all, 'data_item_verify_duration_seconds_count', { source: 'prefix' })).to.equal(1);
    expect(valueOf(all, 'data_item_verify_duration_seconds_count', { source: 'stored' })).to.equal(undefined);
    expect(valueOf(all, 'receipt_sign_duration_seconds_count')).to.equal(2);

    expect(valueOf(all, 'projector_lag_events')).to.equal(0);
    for (const state of ['planned', 'prepared', 'posted', 'seeded', 'confirmed']) expect(valueOf(all, 'live_bundles', { state }), state).to.equal(0);
    expect(valueOf(all, 'gateway_errors_total', { operation: 'blockHeight', kind: 'unreachable' })).to.equal(1);
    // read a minute ago (and at most the test's time since)
    expect(valueOf(all, 'block_height_age_seconds')).to.be.within(60, 60 + 120);
    // prom-client's default process metrics, from this service's own registry
    expect(valueOf(all, 'process_cpu_user_seconds_total')).to.be.a('number');
    expect(valueOf(all, 'nodejs_heap_size_used_bytes')).to.be.greaterThan(0);
  });

  it('times a finalize that reads every chunk as stored when VERIFY_AHEAD_UPLOADS is 0', async () => {
    const other = await startTestService({ VERIFY_AHEAD_UPLOADS: '0' });
    try {
      const big = await signedItem(signers.ethereum(), new Uint8Array(9000).fill(8));
      const uploadId = await createUpload(other.url);
      await postChunks(other.url, uploadId, big.getRaw(), 4000);
      expect((await fetch(`${other.url}/chunks/arweave/${uploadId}/-1`, { method: 'POST' })).status).to.equal(200);
      expect((await (await fetch(`${other.url}/chunks/arweave/${uploadId}/status`)).json()).status).to.equal('FINALIZED');
      const all = samples(await (await fetch(`${other.url}/metrics`)).text());
      expect(valueOf(all, 'data_item_verify_duration_seconds_count', { source: 'stored' })).to.equal(1);
      expect(valueOf(all, 'data_item_verify_duration_seconds_count', { source: 'prefix' })).to.equal(undefined);
    } finally {
      await other.close();
    }
  });

  it('gives each service its own registry, so two services in one process count apart', async () => {
    const other = await startTestService();
    try {
      await fetch(`${other.url}/health`);
      const res = await fetch(`${other.url}/metrics`);
      const all = samples(await res.text());
      expect(valueOf(all, 'http_requests_total', { method: 'GET', route: '/health', status: '200' })).to.equal(1);
      expect(valueOf(all, 'http_requests_total', { method: 'POST', route: '/v1/tx', status: '200' })).to.equal(undefined);
    } finally {
      await other.close();
    }
  });
});

describe('metrics of the ports', function () {
  this.timeout(30_000);

  it('counts failed gateway calls by operation and kind', async () => {
    const metrics = createMetrics();
    const gateway = instrumentGateway(createArweaveGateway({ gatewayUrl: await deadUrl(), timeoutMs: 5_000 }), metrics);
    let failure: unknown;
    await gateway.anchor().catch((error) => (failure = error));
    expect((failure as Error).name).to.equal('GatewayRequestError');
    await gateway.transactionStatus('x'.repeat(43)).catch(() => {});
    const all = samples((await metrics.text()).body);
    expect(valueOf(all, 'gateway_errors_total', { operation: 'anchor', kind: 'unreachable' })).to.equal(1);
    expect(valueOf(all, 'gateway_errors_total', { operation: 'transactionStatus', kind: 'unreachable' })).to.equal(1);
  });

  it('reports live bundles by state from the live-bundles read model at scrape time', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'metrics-bundles-'));
    const readStore = openSqliteReadStore({ path: join(dir, 'read.db') });
    try {
      const collection = collectionOf(liveBundlesProjection);
      const bundle = (id: string, status: string, position: bigint) => ({ collection, id, doc: { status, plannedAt: 1 }, position });
      await readStore.commit([bundle('a', 'posted', 1n), bundle('b', 'posted', 2n), bundle('c', 'planned', 3n)], []);
      const metrics = createMetrics({ liveBundles: () => liveBundlesByState(readStore) });
      let all = samples((await metrics.text()).body);
      expect(valueOf(all, 'live_bundles', { state: 'posted' })).to.equal(2);
      expect(valueOf(all, 'live_bundles', { state: 'planned' })).to.equal(1);
      expect(valueOf(all, 'live_bundles', { state: 'confirmed' })).to.equal(0);
      await readStore.commit([{ collection, id: 'a', doc: undefined, position: 4n }], []);
      all = samples((await metrics.text()).body);
      expect(valueOf(all, 'live_bundles', { state: 'posted' })).to.equal(1);
    } finally {
      await readStore.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
