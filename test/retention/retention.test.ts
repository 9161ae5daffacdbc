import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import type { DataItem } from 'arbundles';
import { startArlocal, ARLOCAL_HEIGHT_SETTINGS, type Arlocal } from '../support/arlocal.js';
import { startTestService, type TestService } from '../support/testService.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { eventually } from '../support/eventually.js';
import { twoLevels, type TwoLevels } from '../nested/support/nestedBundles.js';
import { nestedIndexed } from '../nested/support/indexed.js';
import { auditOf } from '../audit/support.js';
import { dataItemStream, itemBlobKey, type DataItemId } from '../../src/domain/ids.js';
import { BlobNotFound } from '../../src/ports/blobStore.js';
import { startLyingGateway } from './lyingGateway.js';
import { createBlobSweep } from '../../src/app/blobSweep.js';

const DAY_MS = 86_400_000;

/** the events of the item's stream, by type */
async function eventsOf(service: TestService, id: string) {
  const events: { type: string; data: Record<string, unknown> }[] = [];
  for await (const e of service.eventStore.readStream(dataItemStream(id as DataItemId))) events.push({ type: e.type, data: e.data as Record<string, unknown> });
  return events;
}

async function blobThere(service: TestService, id: string): Promise<boolean> {
  try {
    (await service.blobStore.read(itemBlobKey(id as DataItemId))).destroy();
    return true;
  } catch (error) {
    if (BlobNotFound.is(error)) return false;
    throw error;
  }
}

/** the plan of the permanent bundle whose transaction is `txId`, and when it was recorded permanent */
async function permanenceOf(service: TestService, txId: string): Promise<{ planId: string; permanentAt: number }> {
  for await (const e of service.eventStore.readAll()) {
    const data = e.data as { txId?: string; planId: string; timestamp: number };
    if (e.type === 'BundlePermanent' && data.txId === txId) return { planId: data.planId, permanentAt: data.timestamp };
  }
  throw new Error(`no permanent bundle ${txId}`);
}

/** the body as far as it came, and whether it came whole (a cut connection rejects the read) */
async function bodyOf(response: Response): Promise<{ bytes: Buffer; whole: boolean }> {
  const parts: Buffer[] = [];
  try {
    for await (const chunk of response.body!) parts.push(Buffer.from(chunk));
    return { bytes: Buffer.concat(parts), whole: true };
  } catch {
    return { bytes: Buffer.concat(parts), whole: false };
  }
}

/**
 * Retention end to end with arlocal as the gateway (behind a proxy that can lie): items made
 * FINALIZED, the service's monotonic clock advanced past RETAIN_PERMANENT_BYTES_MS, their blobs
 * deleted and recorded, and every read answered byte for byte from arlocal's copy of the bundle.
 */
describe('retention of permanent items’ bytes (arlocal)', function () {
  this.timeout(240_000);
  let arlocal: Arlocal;
  let gateway: Awaited<ReturnType<typeof startLyingGateway>>;
  let service: TestService;
  /** how far the service's monotonic clock is ahead of the system's */
  let ahead = 0;
  let large: DataItem;
  let tiny: DataItem;
  let nested: TwoLevels;
  /** retired by hand, its blob left: a pass killed between its event and the deletion */
  let cut: DataItem;
  /** in a bundle mined but short of CONFIRMATIONS: not permanent, whatever the clock says */
  let late: DataItem;
  const topLevel = () => [large, tiny, nested.root];
  const get = (path: string, init?: RequestInit) => fetch(`${service.url}${path}`, init);

  before(async () => {
    arlocal = await startArlocal();
    gateway = await startLyingGateway(arlocal.url);
    const env = {
      GATEWAY_URL: gateway.url,
      BUNDLE_MAX_WAIT_MS: '0',
      ...ARLOCAL_HEIGHT_SETTINGS,
      FREE_UPLOAD_LIMIT_BYTES: String(1024 * 1024),
      RETAIN_PERMANENT_BYTES_MS: String(DAY_MS),
      GATEWAY_TIMEOUT_MS: '3000',
    };
    service = await startTestService(env, async () => ({ clocks: { monotonic: () => performance.now() + ahead } }));
    await arlocal.mint(service.walletAddress, '100000000000000000');
    large = await signedItem(signers.arweave(), randomBytes(600 * 1024));
    tiny = await signedItem(signers.ethereum(), 'tiny');
    nested = await twoLevels();
    cut = await signedItem(signers.arweave(), 'cut short');
    for (const item of [...topLevel(), cut]) expect((await get('/tx', { method: 'POST', body: asBody(item.getRaw()) })).status).to.equal(200);
    await nestedIndexed(service, nested.root.id);
    const statuses = async () => Promise.all([...topLevel(), cut].map(async (i) => (await (await get(`/tx/${i.id}/status`)).json()).status));
    await eventually(
      async () => {
        await service.bundler.runOnce();
        await arlocal.mine(20);
        await service.bundler.runOnce();
        return statuses();
      },
      (s) => s.every((status) => status === 'FINALIZED'),
      'every item FINALIZED',
      180_000,
    );
    late = await signedItem(signers.ethereum(), 'not permanent yet');
    expect((await get('/tx', { method: 'POST', body: asBody(late.getRaw()) })).status).to.equal(200);
    await eventually(
      async () => {
        await service.bundler.runOnce();
        await arlocal.mine(1);
        return (await (await get(`/tx/${late.id}/offsets`)).json()).rootBundleId;
      },
      (bundle) => typeof bundle === 'string',
      'the late item in a bundle',
      60_000,
    );
    await service.projections.waitFor(await service.eventStore.headPosition(), 10_000);
  });
  after(async () => {
    await service?.close();
    await gateway?.close();
    await arlocal?.stop();
  });
  afterEach(() => {
    gateway.state.fault = 'pass';
  });

  it('keeps the bytes of permanent items until RETAIN_PERMANENT_BYTES_MS has passed on its clock', async () => {
    expect(await service.retention!.runOnce()).to.deep.equal({ retired: 0 });
    ahead += DAY_MS - 60_000;
    expect(await service.retention!.runOnce()).to.deep.equal({ retired: 0 });
    for (const item of topLevel()) expect(await blobThere(service, item.id), item.id).to.equal(true);
  });

  it('then deletes their blobs, each recorded as ItemBytesRetired on its stream', async () => {
    ahead += 120_000;
    // as a pass would, killed after the event and before the deletion
    const offsets = await (await get(`/tx/${cut.id}/offsets`)).json();
    const { planId, permanentAt } = await permanenceOf(service, offsets.rootBundleId);
    const data = { id: cut.id, planId, bundleId: offsets.rootBundleId, startOffsetInRootBundle: offsets.startOffsetInRootBundle, permanentAt, now: Date.now() };
    const { position } = await service.items.execute({ type: 'RetireBytes', data }, { correlationId: 'test' });
    await service.projections.waitFor(position!, 10_000);
    expect(await service.retention!.runOnce()).to.deep.equal({ retired: 3 });
    for (const item of topLevel()) {
      expect(await blobThere(service, item.id), item.id).to.equal(false);
      const retired = (await eventsOf(service, item.id)).filter((e) => e.type === 'ItemBytesRetired');
      expect(retired, item.id).to.have.length(1);
      const offsets = await (await get(`/tx/${item.id}/offsets`)).json();
      expect(retired[0]!.data).to.deep.include({
        id: item.id,
        blobKey: itemBlobKey(item.id as DataItemId),
        sha256: createHash('sha256').update(item.getRaw()).digest('hex'),
        rawContentLength: item.getRaw().byteLength,
        bundleId: offsets.rootBundleId,
        startOffsetInRootBundle: offsets.startOffsetInRootBundle,
      });
    }
    // a second pass finds nothing more to do
    expect(await service.retention!.runOnce()).to.deep.equal({ retired: 0 });
    // a bundle not permanent keeps its items' bytes however old
    expect((await (await get(`/tx/${late.id}/status`)).json()).status).to.equal('CONFIRMED');
    expect(await blobThere(service, late.id)).to.equal(true);
  });

  it('answers GET /:id, /tx/:id/data, a range and HEAD byte for byte from the gateway, nested items too', async () => {
    for (const item of [...topLevel(), nested.inner1, nested.last]) {
      const payload = Buffer.from(item.rawData);
      const whole = await get(`/${item.id}`);
      expect(whole.status, item.id).to.equal(200);
      expect(Buffer.from(await whole.arrayBuffer()).equals(payload), item.id).to.equal(true);
      const data = await get(`/tx/${item.id}/data`);
      expect(Buffer.from(await data.arrayBuffer()).equals(payload), item.id).to.equal(true);
      const end = Math.min(payload.length - 1, 300_000);
      const range = await get(`/${item.id}`, { headers: { Range: `bytes=1-${end}` } });
      expect(range.status, item.id).to.equal(206);
      expect(range.headers.get('content-range')).to.equal(`bytes 1-${end}/${payload.length}`);
      expect(Buffer.from(await range.arrayBuffer()).equals(payload.subarray(1, end + 1)), item.id).to.equal(true);
      const head = await get(`/${item.id}`, { method: 'HEAD' });
      expect(head.status).to.equal(200);
      expect(head.headers.get('content-length')).to.equal(String(payload.length));
    }
    const header = await get(`/tx/${tiny.id}`);
    expect(header.status).to.equal(200);
    expect((await header.json()).id).to.equal(tiny.id);
  });

  it('leaves a blob whose deletion a crash cut to the orphan sweep; the audit names it until then, and is clean after', async () => {
    expect(await blobThere(service, cut.id)).to.equal(true);
    // served from the blob still there, meanwhile
    expect(Buffer.from(await (await get(`/${cut.id}`)).arrayBuffer()).toString()).to.equal('cut short');
    const before = await auditOf(service, { blobGraceMs: 0 });
    expect(before.findings.map(({ kind, id, detail }) => ({ kind, id, retired: detail.includes('ItemBytesRetired') }))).to.deep.equal([
      { kind: 'blob-orphan', id: cut.id, retired: true },
    ]);
    let at = 0;
    const sweep = createBlobSweep({
      eventStore: service.eventStore,
      blobStore: service.blobStore,
      graceMs: 1,
      now: () => Date.now() + 60_000,
      monotonic: () => at,
      log: { info() {}, debug() {} },
    });
    await sweep.pass();
    at = 10;
    expect((await sweep.pass()).removed).to.equal(1);
    expect(await blobThere(service, cut.id)).to.equal(false);
    expect(Buffer.from(await (await get(`/${cut.id}`)).arrayBuffer()).toString()).to.equal('cut short');
    const { findings, summary } = await auditOf(service, { blobGraceMs: 0 });
    expect(findings).to.deep.equal([]);
    expect(summary.checked.retiredItemBlobs).to.equal(4);
  });

  it('shows the bytes held and retired, and the days of disk left, on the status page and in /metrics', async () => {
    const retired = [...topLevel(), cut].reduce((sum, item) => sum + item.getRaw().byteLength, 0);
    const { storage, uploads } = await (await get('/dashboard/api/summary')).json();
    expect(storage).to.deep.include({
      bytesRetired: retired,
      itemsRetired: 4,
      bytesHeld: uploads.total.bytes - retired,
      bytesPerDay: uploads.lastHour.bytes * 24,
    });
    expect(storage.daysOfDiskLeft).to.equal(storage.freeDiskBytes / storage.bytesPerDay);
    const metrics = await (await get('/metrics')).text();
    expect(metrics).to.match(new RegExp(`^item_bytes_retired ${retired}$`, 'm'));
    expect(metrics).to.match(new RegExp(`^item_bytes_held ${uploads.total.bytes - retired}$`, 'm'));
    expect(metrics).to.match(/^disk_days_left \d+(\.\d+)?(e\+\d+)?$/m);
  });

  it('cuts the answer before its last byte when the gateway alters one byte, also of a range not holding it', async () => {
    gateway.state.fault = 'flip';
    const payload = Buffer.from(large.rawData);
    // in the payload, past the range asked for: only the whole item's digest shows it
    gateway.state.flipAt = (await (await get(`/tx/${large.id}/offsets`)).json()).startOffsetInRootBundle + large.getRaw().byteLength - 10;
    const whole = await bodyOf(await get(`/${large.id}`));
    expect(whole.whole).to.equal(false);
    expect(whole.bytes.length).to.be.below(payload.length);
    const range = await get(`/${large.id}`, { headers: { Range: 'bytes=0-99' } });
    expect(range.status).to.equal(206);
    const ranged = await bodyOf(range);
    expect(ranged.whole).to.equal(false);
    expect(ranged.bytes.equals(payload.subarray(0, 99))).to.equal(true);
  });

  it('answers 502 Bad Gateway when the gateway has not the data, 504 Gateway Timeout when it does not answer in time', async () => {
    gateway.state.fault = 'missing';
    const missing = await get(`/${tiny.id}`);
    expect(missing.status).to.equal(502);
    expect(await missing.text()).to.equal('Bad Gateway');
    gateway.state.fault = 'hang';
    const hung = await get(`/${tiny.id}`);
    expect(hung.status).to.equal(504);
    expect(await hung.text()).to.equal('Gateway Timeout');
    gateway.state.fault = 'pass';
    expect((await get(`/${tiny.id}`)).status).to.equal(200);
  });
});
