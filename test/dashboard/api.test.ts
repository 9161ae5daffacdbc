import { expect } from 'chai';
import { startTestService, TEST_BLOCK_HEIGHT, type TestService } from '../support/testService.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { expectText } from '../support/multipart.js';
import { twoLevels } from '../nested/support/nestedBundles.js';
import { nestedIndexed } from '../nested/support/indexed.js';
import { serviceVersion } from '../../src/version.js';
import { collectionOf, txStatusProjection, type TxStatusDocument } from '../../projections/index.js';
import { toNewEvent } from '../../src/domain/events.js';
import { dataItemStream, newEventId, type DataItemId } from '../../src/domain/ids.js';

const MINUTE = 60_000;

describe('dashboard JSON and pages over HTTP', function () {
  this.timeout(60_000);
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.close());

  const getJson = async (path: string) => {
    const res = await fetch(`${service.url}${path}`);
    expect(res.status, path).to.equal(200);
    expect(res.headers.get('cache-control')).to.equal('no-store');
    return res.json();
  };
  const acceptedAt = async (id: string) => (await service.readStore.get<TxStatusDocument>(collectionOf(txStatusProjection), id))!.doc.timestamp;

  it('summarises an empty service: its info, no uploads in 60 minutes, no bundles, the read models caught up', async () => {
    const summary = await getJson('/dashboard/api/summary');
    expect(summary.info).to.deep.equal(await (await fetch(`${service.url}/info`)).json());
    expect(summary.info.version).to.equal(serviceVersion);
    expect(summary.uploads.perMinute).to.have.length(60);
    expect(summary.uploads.perMinute.every((m: { items: number; bytes: number }) => m.items === 0 && m.bytes === 0)).to.equal(true);
    expect(summary.uploads.lastHour).to.deep.equal({ items: 0, bytes: 0 });
    expect(summary.uploads.total).to.deep.equal({ items: 0, bytes: 0 });
    expect(summary.bundles).to.deep.equal({ planned: 0, prepared: 0, posted: 0, seeded: 0, confirmed: 0, permanent: 0, dropped: 0 });
    expect(summary.waiting).to.deep.equal({ items: 0, oldestAcceptedAt: null, oldestAgeSeconds: null });
    expect(summary.failures).to.deep.equal([]);
    expect(summary.projector.behind).to.equal('0');
    // the stand-in gateway's height, read at start-up
    expect(Date.parse(summary.blockHeight.readAt)).to.be.a('number').and.not.NaN;
    expect(summary.blockHeight).to.deep.equal({
      height: TEST_BLOCK_HEIGHT,
      readAt: summary.blockHeight.readAt,
      fresh: true,
      maxAgeMs: 1_800_000,
      reachable: true,
      lastError: null,
      lastErrorAt: null,
    });
  });

  it('counts uploads in the minute they were accepted, and answers an item with its timeline', async () => {
    const a = await signedItem(signers.arweave(), 'first', [{ name: 'Content-Type', value: 'text/plain' }]);
    const b = await signedItem(signers.ethereum(), new Uint8Array(300));
    for (const item of [a, b]) expect((await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) })).status).to.equal(200);

    const summary = await getJson('/dashboard/api/summary');
    const expected = new Map<string, number>();
    for (const item of [a, b]) {
      const minute = new Date(Math.floor((await acceptedAt(item.id)) / MINUTE) * MINUTE).toISOString();
      expected.set(minute, (expected.get(minute) ?? 0) + 1);
    }
    const counted = summary.uploads.perMinute.filter((m: { items: number }) => m.items > 0).map((m: { minute: string; items: number }) => [m.minute, m.items]);
    expect(counted).to.deep.equal([...expected.entries()]);
    const bytes = a.getRaw().length + b.getRaw().length;
    expect(summary.uploads.lastHour).to.deep.equal({ items: 2, bytes });
    expect(summary.uploads.total).to.deep.equal({ items: 2, bytes });
    expect(summary.projector.head).to.equal((await service.eventStore.headPosition()).toString());
    expect(summary.projector.behind).to.equal('0');

    expect(await getJson(`/dashboard/api/tx/${a.id}`)).to.deep.equal({
      id: a.id,
      status: { status: 'CONFIRMED', info: 'new' },
      timeline: [
        {
          at: new Date(await acceptedAt(a.id)).toISOString(),
          type: 'DataItemAccepted',
          summary: `accepted: ${a.getRaw().length} bytes of text/plain, 0 winc (free)`,
        },
      ],
      bundle: null,
      offsets: null,
      nestedIn: null,
    });
  });

  it('answers an item nested in an uploaded bundle with its root, and the root with its nested index', async () => {
    const nested = await twoLevels();
    expect((await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(nested.root.getRaw()) })).status).to.equal(200);
    await nestedIndexed(service, nested.root.id);
    expect(await getJson(`/dashboard/api/tx/${nested.inner1.id}`)).to.deep.equal({
      id: nested.inner1.id,
      status: null,
      timeline: [],
      bundle: null,
      offsets: null,
      nestedIn: nested.root.id,
    });
    const root = await getJson(`/dashboard/api/tx/${nested.root.id}`);
    expect(root.timeline.map((e: { type: string; summary: string }) => [e.type, e.summary])).to.deep.equal([
      ['DataItemAccepted', `accepted: ${nested.root.getRaw().length} bytes of application/octet-stream, 0 winc (free)`],
      ['NestedItemsIndexed', 'payload is a bundle: 5 nested items (depth up to 2), signatures verified'],
    ]);
  });

  it("answers 404 TX doesn't exist for an id no read model knows, and for a malformed one", async () => {
    await expectText(await fetch(`${service.url}/dashboard/api/tx/${'A'.repeat(43)}`), 404, "TX doesn't exist");
    await expectText(await fetch(`${service.url}/dashboard/api/tx/not-an-id`), 404, "TX doesn't exist");
  });

  it('serves the pages with a content security policy, their own scripts and styles, and nothing outside its folder', async () => {
    for (const path of ['/dashboard', `/dashboard/tx/${'A'.repeat(43)}`]) {
      const res = await fetch(`${service.url}${path}`);
      expect(res.status, path).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8');
      expect(res.headers.get('content-security-policy')).to.include("script-src 'self'");
      const html = await res.text();
      expect(html).to.not.match(/https?:\/\//);
    }
    for (const [asset, type] of [
      ['status.js', 'text/javascript; charset=utf-8'],
      ['item.js', 'text/javascript; charset=utf-8'],
      ['common.js', 'text/javascript; charset=utf-8'],
      ['dashboard.css', 'text/css; charset=utf-8'],
    ] as const) {
      const res = await fetch(`${service.url}/dashboard/assets/${asset}`);
      expect(res.status, asset).to.equal(200);
      expect(res.headers.get('content-type')).to.equal(type);
    }
    await expectText(await fetch(`${service.url}/dashboard/assets/missing.js`), 404, 'Not Found');
    await expectText(await fetch(`${service.url}/dashboard/assets/..%2frouter.ts`), 404, 'Not Found');
    await expectText(await fetch(`${service.url}/dashboard/assets/..%2f..%2f..%2f..%2fpackage.json`), 404, 'Not Found');
  });
});

describe('dashboard summary: items waiting for a bundle and the last failures', function () {
  this.timeout(60_000);
  const ADMIN_TOKEN = 'test-only-admin-token-0123456789';
  let service: TestService;
  before(async () => {
    service = await startTestService({ ADMIN_TOKEN });
  });
  after(() => service.close());

  const summary = async () =>
    (await (await fetch(`${service.url}/dashboard/api/summary`)).json()) as {
      generatedAt: string;
      waiting: { items: number; oldestAcceptedAt: string | null; oldestAgeSeconds: number | null };
      failures: { id: string; at: string; reason: string }[];
    };
  const acceptedAt = async (id: string) => (await service.readStore.get<TxStatusDocument>(collectionOf(txStatusProjection), id))!.doc.timestamp;

  it("counts the items waiting with the oldest one's age, lists a FAILED item with when and why, and drops it once requeued", async () => {
    const items = [await signedItem(signers.arweave(), 'oldest'), await signedItem(signers.arweave(), 'newer'), await signedItem(signers.arweave(), 'fails')];
    for (const item of items) expect((await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) })).status).to.equal(200);
    const oldest = await acceptedAt(items[0]!.id);
    const first = await summary();
    expect(first.waiting).to.deep.equal({
      items: 3,
      oldestAcceptedAt: new Date(oldest).toISOString(),
      oldestAgeSeconds: Math.floor((Date.parse(first.generatedAt) - oldest) / 1000),
    });

    // what the bundler records for an item whose bundles were dropped MAX_BUNDLE_ATTEMPTS times
    const failing = items[2]!;
    const failedAt = Date.now();
    const failed = { type: 'DataItemFailed' as const, data: { id: failing.id, attempts: 10, reason: '10 bundles dropped', timestamp: failedAt } };
    const { position } = await service.eventStore.append(
      dataItemStream(failing.id as DataItemId),
      [toNewEvent(failed, newEventId(), { correlationId: 'spec' })],
      0n,
    );
    expect(await service.projections.waitFor(position, 10_000)).to.equal(true);
    const afterFailure = await summary();
    expect(afterFailure.waiting.items).to.equal(2);
    expect(afterFailure.failures).to.deep.equal([{ id: failing.id, at: new Date(failedAt).toISOString(), reason: '10 bundles dropped' }]);

    const res = await fetch(`${service.url}/admin/items/${failing.id}/requeue`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ by: 'ops', reason: 'gateway healed' }),
    });
    expect(res.status).to.equal(200);
    const afterRequeue = await summary();
    expect(afterRequeue.failures).to.deep.equal([]);
    expect(afterRequeue.waiting).to.include({ items: 3, oldestAcceptedAt: new Date(oldest).toISOString() });
  });
});
