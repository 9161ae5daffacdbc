import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { DataItem } from 'arbundles';
import { withArlocalService } from '../support/arlocalService.js';
import { startTestService, type TestService } from '../support/testService.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { itemOfSize } from '../support/sizedItem.js';
import { createUpload, postChunks } from '../support/multipart.js';
import { nativeAddress } from '../../src/verify/index.js';
import { serviceVersion } from '../../src/version.js';
import { bundleStream } from '../../src/domain/bundle/ids.js';
import { collectionOf, txStatusProjection, type TxStatusDocument } from '../../projections/index.js';
import { toNewEvent } from '../../src/domain/events.js';
import { dataItemStream, newEventId, type DataItemId } from '../../src/domain/ids.js';
import { createRequeue } from '../../src/app/requeueItems.js';
import { damageStoredBlob } from '../support/storedBlob.js';
import { eventually } from '../support/eventually.js';

/** Debian's chromium (CI installs it): the test fails, not skips, without it */
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const MINUTE = 60_000;
const FREE = 5000;
const RATE = 10;

/**
 * The status page and the item page in headless Chromium, against the whole service with arlocal
 * as its gateway: three items bundled until permanent (one of them a paid multi-part upload), a
 * fourth in a bundle still waiting to be mined.
 */
describe('dashboard pages in a browser', function () {
  this.timeout(120_000);
  const env = withArlocalService({ FREE_UPLOAD_LIMIT_BYTES: String(FREE), PRICE_WINC_PER_BYTE: String(RATE) });
  let browser: Browser;
  let page: Page;
  let items: DataItem[];
  let multipart: DataItem;
  let uploadId: string;
  let payer: string;

  const upload = async (item: DataItem) => expect((await fetch(`${env.service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) })).status).to.equal(200);
  const statusOf = async (id: string) => (await env.service.readStore.get<TxStatusDocument>(collectionOf(txStatusProjection), id))!.doc;
  /** bundler passes, as the periodic bundler would make them, until the bundles by state satisfy `done` (a minute at most) */
  async function bundleUntil(done: (bundles: Record<string, number>) => boolean): Promise<void> {
    const pass = async () => {
      await env.service.bundler.runOnce();
      return ((await (await fetch(`${env.service.url}/dashboard/api/summary`)).json()) as { bundles: Record<string, number> }).bundles;
    };
    await eventually(pass, done, 'the bundles by state', 60_000, 250);
  }

  before(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`these tests need headless Chromium at ${CHROMIUM} (Debian package "chromium")`);
    items = [
      await signedItem(signers.arweave(), 'a status page', [{ name: 'Content-Type', value: 'text/plain' }]),
      await signedItem(signers.ethereum(), new Uint8Array(300).fill(7)),
    ];
    for (const item of items) await upload(item);
    // above the free limit, paid by its owner: the timeline shows the reservation and its settlement
    multipart = await itemOfSize(signers.ethereum(), 70_000);
    payer = nativeAddress(3, multipart.rawOwner);
    const credit = { type: 'Credit', data: { address: payer, winc: 1_000_000n, creditId: 'dashboard-test', now: Date.now() } } as const;
    const { position } = await env.service.accounts.execute(credit, { correlationId: 'dashboard-test' });
    expect(await env.service.projections.waitFor(position!, 5000)).to.equal(true);
    uploadId = await createUpload(env.service.url);
    await postChunks(env.service.url, uploadId, multipart.getRaw(), 30_000);
    expect((await fetch(`${env.service.url}/chunks/arweave/${uploadId}/-1`, { method: 'POST' })).status).to.equal(200);
    // a step that fails on a loaded machine is retried after a backoff: passes until each state is reached
    await bundleUntil((b) => b.seeded === 1);
    await env.arlocal.mine(20);
    await bundleUntil((b) => b.permanent === 1 && b.seeded === 0);
    // one more, posted and seeded but not mined yet
    const late = await signedItem(signers.solana(), 'late', [{ name: 'Content-Type', value: 'text/plain' }]);
    await upload(late);
    await bundleUntil((b) => b.seeded === 1);
    items.push(multipart, late);

    // playwright gives the browser a fresh profile of its own (a temp directory it removes)
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  after(() => browser?.close());
  beforeEach(async () => {
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  });
  afterEach(() => page?.close());

  const text = async (selector: string) => (await page.textContent(selector))?.trim();

  it('shows the version, the uploads per minute in its chart, the bundles by state and the projector lag', async () => {
    await page.goto(`${env.service.url}/dashboard`);
    await page.waitForSelector('#uploads-chart');
    expect(await text('#version')).to.equal(`v${serviceVersion}`);
    expect(await text('#info-version')).to.equal(serviceVersion);
    expect(await text('#wallet')).to.equal(env.service.walletAddress);
    expect(await text('#gateway')).to.equal(env.arlocal.url);

    const expected = new Map<string, number>();
    for (const item of items) {
      const minute = new Date(Math.floor((await statusOf(item.id)).timestamp / MINUTE) * MINUTE).toISOString();
      expected.set(minute, (expected.get(minute) ?? 0) + 1);
    }
    const bars = await page.$$eval('#uploads-chart rect', (rects) =>
      rects.map((r) => [r.getAttribute('data-minute'), Number(r.getAttribute('data-items'))] as const),
    );
    expect(bars).to.have.length(60);
    expect(bars.filter(([, n]) => n > 0)).to.deep.equal([...expected.entries()]);
    expect(await text('#uploads-last-hour')).to.equal('4');
    expect(await text('#uploads-total')).to.equal('4');

    const states = await page.$$eval('#bundles tr', (rows) => rows.map((r) => [r.getAttribute('data-state'), r.querySelector('td')?.textContent]));
    expect(states).to.deep.equal([
      ['planned', '0'],
      ['prepared', '0'],
      ['posted', '0'],
      ['seeded', '1'],
      ['confirmed', '0'],
      ['permanent', '1'],
      ['dropped', '0'],
    ]);
    expect(await text('#lag-behind')).to.equal('0');
    expect(await text('#lag-head')).to.equal((await env.service.eventStore.headPosition()).toString());
    // the block height receipts are signed with: arlocal's, its gateway reachable, uploads taken
    expect(await text('#block-height-value')).to.match(/^\d+$/);
    expect(await text('#block-height-read-at')).to.match(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} UTC$/);
    expect(await text('#block-height-gateway')).to.equal('reachable');
    expect(await text('#block-height-error')).to.equal('–');
    expect(await page.isHidden('#block-height-banner')).to.equal(true);
    await page.screenshot({ path: join(tmpdir(), 'dashboard-status.png'), fullPage: true });

    // it refreshes by itself: one more upload shows up without a reload
    await upload(await signedItem(signers.arweave(), 'one more', [{ name: 'Content-Type', value: 'text/plain' }]));
    await page.waitForFunction(() => document.getElementById('uploads-total')?.textContent === '5', undefined, { timeout: 15_000 });
  });

  it("shows an item's timeline in order, its bundle and its offsets", async () => {
    const status = await statusOf(multipart.id);
    const planId = status.planId!;
    const txId = status.bundleId!;
    let permanent: { blockHeight: number; confirmations: number } | undefined;
    for await (const e of env.service.eventStore.readStream(bundleStream(planId))) {
      if (e.type === 'BundlePermanent') permanent = e.data as typeof permanent;
    }
    const size = multipart.getRaw().length;
    const winc = String(size * RATE);
    // the first three items: a header of 32 + 64 bytes each, then their bytes
    const bundleSize = 32 + 64 * 3 + items.slice(0, 3).reduce((n, i) => n + i.getRaw().length, 0);

    await page.goto(`${env.service.url}/dashboard/tx/${multipart.id}`);
    await page.waitForSelector('#timeline li');
    expect(await text('#item-id')).to.equal(multipart.id);
    expect(await text('#item-status')).to.equal('FINALIZED (permanent)');
    const timeline = await page.$$eval('#timeline li', (lis) =>
      lis.map((li) => [li.querySelector('.type')?.textContent, li.querySelector('.summary')?.textContent]),
    );
    expect(timeline).to.deep.equal([
      ['UploadCreated', `multi-part upload ${uploadId} created (token arweave)`],
      ['ChunkReceived', `3 chunks received: ${size} bytes`],
      ['UploadFinalizeRequested', 'finalize requested'],
      ['UploadValidated', `multi-part upload ${uploadId} verified: ${size} bytes`],
      ['DataItemAccepted', `accepted: ${size} bytes of application/octet-stream, ${winc} winc charged to ${payer}, through multi-part upload ${uploadId}`],
      ['ReservationSettled', `${winc} winc settled: charged to ${payer}`],
      ['UploadFinalized', `multi-part upload ${uploadId} finalized`],
      ['BundlePlanned', `planned into bundle ${planId} at offset ${status.startOffsetInRootBundle} (3 items, ${bundleSize} bytes)`],
      ['BundlePrepared', `bundle ${planId} signed as transaction ${txId}`],
      ['BundlePosted', `bundle transaction ${txId} posted to the gateway`],
      ['BundleSeeded', `bundle transaction ${txId}: every chunk seeded`],
      ['BundlePermanent', `permanent: transaction ${txId} in block ${permanent!.blockHeight}, ${permanent!.confirmations} confirmations`],
    ]);
    const accepted = await page.getAttribute('#timeline li[data-type="DataItemAccepted"] time', 'datetime');
    expect(accepted).to.equal(new Date(status.timestamp).toISOString());

    expect(await text('#bundle-state')).to.equal('permanent');
    expect(await text('#bundle-id')).to.equal(txId);
    expect(await text('#plan-id')).to.equal(planId);
    const offsets = await (await fetch(`${env.service.url}/tx/${multipart.id}/offsets`)).json();
    const shown = await page.$$eval('#offsets dd', (dds) => dds.map((dd) => [dd.getAttribute('data-field'), dd.textContent]));
    expect(shown).to.deep.equal(Object.entries(offsets).map(([field, value]) => [field, String(value)]));
    expect(offsets.rootBundleId).to.equal(txId);
    await page.screenshot({ path: join(tmpdir(), 'dashboard-item.png'), fullPage: true });
  });

  it('says clearly that an unknown id is not known', async () => {
    const unknown = 'x'.repeat(43);
    await page.goto(`${env.service.url}/dashboard/tx/${unknown}`);
    await page.waitForSelector('#not-found', { state: 'visible' });
    expect(await text('#not-found-message')).to.equal(`No data item with id ${unknown} is known to this service.`);
    expect(await page.isHidden('#found')).to.equal(true);
    await page.screenshot({ path: join(tmpdir(), 'dashboard-unknown.png') });
  });

  // last: it adds a damaged item and a dropped bundle to what the tests above count
  it('shows an item whose stored bytes were found damaged: on its page, and counted on the status page', async () => {
    const damaged = await signedItem(signers.arweave(), 'soon damaged', [{ name: 'Content-Type', value: 'text/plain' }]);
    await upload(damaged);
    await damageStoredBlob(env.service.dataDir, `items/${damaged.id}`, (bytes) => {
      bytes[bytes.length - 1]! ^= 0x01;
      return bytes;
    });
    await env.service.bundler.runOnce();
    expect(await statusOf(damaged.id)).to.include({ status: 'FAILED', info: 'damaged' });

    await page.goto(`${env.service.url}/dashboard/tx/${damaged.id}`);
    await page.waitForSelector('#damage', { state: 'visible' });
    expect(await text('#item-status')).to.equal('FAILED (damaged)');
    expect(await text('#damage')).to.equal(
      'The stored bytes of this item no longer match the bytes it was accepted with, so it is kept out of every bundle. Uploading the same item again repairs it.',
    );
    const types = await page.$$eval('#timeline li', (lis) => lis.map((li) => li.getAttribute('data-type')));
    expect(types).to.deep.equal(['DataItemAccepted', 'BundlePlanned', 'DataItemDamaged', 'BundleDropped']);

    await page.goto(`${env.service.url}/dashboard`);
    await page.waitForFunction(() => document.getElementById('items-damaged')?.textContent === '1', undefined, { timeout: 15_000 });
    expect(await page.getAttribute('#damaged', 'class')).to.equal('alarm');
    await page.screenshot({ path: join(tmpdir(), 'dashboard-damaged.png'), fullPage: true });
  });

  it("shows the items waiting for a bundle with the oldest one's age, and the last failures linked to their pages; a requeued one leaves", async () => {
    const before = (await (await fetch(`${env.service.url}/dashboard/api/summary`)).json()) as { waiting: { items: number } };
    const failing = await signedItem(signers.arweave(), 'will fail', [{ name: 'Content-Type', value: 'text/plain' }]);
    await upload(failing);
    // what the bundler records for an item whose bundles were dropped MAX_BUNDLE_ATTEMPTS times
    const failedAt = Date.now();
    const failed = { type: 'DataItemFailed' as const, data: { id: failing.id, attempts: 10, reason: '10 bundles dropped', timestamp: failedAt } };
    const { position } = await env.service.eventStore.append(
      dataItemStream(failing.id as DataItemId),
      [toNewEvent(failed, newEventId(), { correlationId: 'spec' })],
      0n,
    );
    expect(await env.service.projections.waitFor(position, 10_000)).to.equal(true);
    const waiting = await signedItem(signers.arweave(), 'waits', [{ name: 'Content-Type', value: 'text/plain' }]);
    await upload(waiting);
    const summary = (await (await fetch(`${env.service.url}/dashboard/api/summary`)).json()) as { waiting: { items: number; oldestAcceptedAt: string } };
    expect(summary.waiting.items).to.equal(before.waiting.items + 1);

    await page.goto(`${env.service.url}/dashboard`);
    await page.waitForFunction((n) => document.getElementById('waiting-items')?.textContent === String(n), summary.waiting.items, { timeout: 15_000 });
    const oldest = summary.waiting.oldestAcceptedAt;
    expect(await text('#waiting-oldest')).to.match(
      new RegExp(`^\\d+ (s|min|h \\d+ min) \\(accepted ${oldest.slice(0, 10)} ${oldest.slice(11, 23).replace('.', '\\.')} UTC\\)$`),
    );
    const rows = await page.$$eval('#failures tr', (trs) =>
      trs.map((tr) => [
        tr.getAttribute('data-id'),
        tr.querySelector('a')?.getAttribute('href'),
        tr.querySelector('time')?.getAttribute('datetime'),
        tr.querySelectorAll('td')[2]?.textContent,
      ]),
    );
    expect(rows[0]).to.deep.equal([failing.id, `/dashboard/tx/${failing.id}`, new Date(failedAt).toISOString(), '10 bundles dropped']);
    expect(await page.isVisible('#failures-none')).to.equal(false);
    await page.screenshot({ path: join(tmpdir(), 'dashboard-failures.png'), fullPage: true });

    // requeued, it leaves the list and waits for a bundle again: the page follows without a reload
    const outcome = await createRequeue({
      items: env.service.items,
      accounts: env.service.accounts,
      now: Date.now,
      awaitProjection: (p) => env.service.projections.waitFor(p, 10_000),
    })({ id: failing.id, by: 'ops', reason: 'gateway healed' }, { correlationId: 'dashboard-test' });
    expect(outcome.requeued).to.equal(true);
    await page.waitForFunction((id) => !document.querySelector(`#failures tr[data-id="${id}"]`), failing.id, { timeout: 15_000 });
    expect(await text('#waiting-items')).to.equal(String(summary.waiting.items + 1));
  });
});

describe('the status page while the gateway is unreachable', function () {
  this.timeout(120_000);
  let service: TestService;
  let browser: Browser;

  before(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`these tests need headless Chromium at ${CHROMIUM} (Debian package "chromium")`);
    // a port where nothing listens, and no height saved: none was ever read
    const nothing = createServer().listen(0, '127.0.0.1');
    await once(nothing, 'listening');
    const deadUrl = `http://127.0.0.1:${(nothing.address() as AddressInfo).port}`;
    nothing.close();
    await once(nothing, 'close');
    service = await startTestService({ GATEWAY_URL: deadUrl });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  it('shows no height, the gateway unreachable with its error, and a banner: uploads are refused', async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    try {
      await page.goto(`${service.url}/dashboard`);
      await page.waitForSelector('#block-height-banner:not([hidden])');
      const text = async (selector: string) => (await page.textContent(selector))?.trim();
      expect(await text('#block-height-value')).to.equal('–');
      expect(await text('#block-height-read-at')).to.equal('never');
      expect(await text('#block-height-gateway')).to.equal('unreachable');
      expect(await page.getAttribute('#block-height-gateway', 'class')).to.equal('alarm');
      expect(await text('#block-height-error')).to.match(
        /^GET http:\/\/127\.0\.0\.1:\d+\/info failed \(ECONNREFUSED\) \(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} UTC\)$/,
      );
      expect(await text('#block-height-banner')).to.equal(
        'Uploads are refused (503 Service unavailable): no block height was ever read from the gateway. They are taken again once the gateway answers.',
      );
      await page.screenshot({ path: join(tmpdir(), 'dashboard-gateway-unreachable.png'), fullPage: true });
    } finally {
      await page.close();
    }
  });
});
