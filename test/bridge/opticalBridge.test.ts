import { expect } from 'chai';
import type { DataItem } from 'arbundles';
import { startTestService, type TestService } from '../support/testService.js';
import { signedItem, signers } from '../support/items.js';
import { eventually } from '../support/eventually.js';
import { startOpticalGateway, type OpticalGatewayDouble } from '../support/opticalGateway.js';
import { twoLevels } from '../nested/support/nestedBundles.js';
import { bridgedEvents, bridgeEnv, expectHeaderVerifies, upload } from './support.js';
import { history } from '../../src/history/history.js';

const KEY = 'gateway-admin-key-for-tests';

const queuedIds = (gateway: OpticalGatewayDouble) => gateway.queued.map((h) => h.id);
const itemsOf = (events: Awaited<ReturnType<typeof bridgedEvents>>) => events.flatMap((e) => e.items);

describe('optical bridge: posting signed headers to ar.io gateways', function () {
  this.timeout(120_000);
  let gateway: OpticalGatewayDouble;
  let service: TestService;
  afterEach(async () => {
    await service?.close();
    await gateway?.close();
  });

  it("posts each accepted item's header, nested items' too, in the body ar-io-node takes, each one verifying", async () => {
    gateway = await startOpticalGateway(KEY);
    service = await startTestService(bridgeEnv(gateway.url, KEY));
    const plain = await Promise.all([
      signedItem(signers.arweave(), 'plain text', [{ name: 'Content-Type', value: 'text/plain' }]),
      signedItem(signers.ethereum()),
    ]);
    const nested = await twoLevels();
    for (const item of [...plain, nested.root]) expect((await upload(service, item.getRaw())).status).to.equal(200);
    const all: DataItem[] = [...plain, nested.root, nested.first, nested.middle, nested.last, nested.inner1, nested.inner2];
    await eventually(
      () => new Set(queuedIds(gateway)).size,
      (n) => n === all.length,
      'every header queued by the gateway',
    );
    expect(queuedIds(gateway).sort()).to.deep.equal(all.map((i) => i.id).sort());
    const payloads = new Map(all.map((i) => [i.id, i.rawData]));
    for (const header of gateway.queued) await expectHeaderVerifies(header, payloads.get(header.id)!);
    // the uploaded items' headers as their acceptance verified them; the nested ones' read from their root's blob
    expect(service.opticalBridge!.stats().headers).to.deep.equal({ handed: plain.length + 1, read: 5 });
    const text = gateway.queued.find((h) => h.id === plain[0]!.id)!;
    expect(text.content_type).to.equal('text/plain');
    expect(text.tags).to.deep.equal([{ name: Buffer.from('Content-Type').toString('base64url'), value: Buffer.from('text/plain').toString('base64url') }]);
    expect([text.target, text.anchor]).to.deep.equal(['', '']);
    // nothing refused but the probe of an idle gateway (an empty array: past the key check, refused by the route's own)
    expect([...gateway.answers.keys()].sort()).to.deep.equal([200, 400]);
    expect(gateway.refused).to.deep.equal([[]]);

    const events = await eventually(
      () => bridgedEvents(service),
      (e) => itemsOf(e).length === all.length,
      'every outcome recorded',
    );
    for (const e of events) expect([e.gateway, e.ok, e.status, e.attempts]).to.deep.equal([gateway.host, true, 200, 1]);
    // on the root's stream: the root and its nested items, in one or more events
    expect(
      events
        .filter((e) => e.id === nested.root.id)
        .flatMap((e) => e.items)
        .sort(),
    ).to.deep.equal([nested.root, nested.first, nested.middle, nested.last, nested.inner1, nested.inner2].map((i) => i.id).sort());
    // the history (`npm run history -- <id>`) of the root's stream says what became of its headers
    let lines = '';
    for await (const piece of history({ eventStore: service.eventStore }, nested.root.id)) lines += piece;
    const bridgedLines = lines.split('\n').filter((l) => l.includes('DataItemBridged'));
    expect(bridgedLines.length).to.be.at.least(1);
    expect(bridgedLines.join('\n')).to.include(`posted to optical bridge ${gateway.host} after 1 posts (last status 200)`);
  });

  it('names the gateway in receipts once it answers, and this service in dataCaches', async () => {
    gateway = await startOpticalGateway(KEY);
    service = await startTestService(bridgeEnv(gateway.url, KEY, { PUBLIC_URL: 'https://upload.example' }));
    const { receipt } = await eventually(
      async () => upload(service, (await signedItem(signers.ethereum())).getRaw()),
      (r) => r.receipt.fastFinalityIndexes.length > 0,
      'a receipt naming the gateway',
    );
    expect(receipt.fastFinalityIndexes).to.deep.equal([gateway.host]);
    expect(receipt.dataCaches).to.deep.equal(['upload.example']);
  });

  it("splits a batch whose headers pass ar-io-node's 100 KiB body limit over several posts", async () => {
    gateway = await startOpticalGateway(KEY);
    // a long wait, so the items go in one batch of 45 headers of about 7 KB each (300 KB)
    service = await startTestService(bridgeEnv(gateway.url, KEY, { OPTICAL_BRIDGE_INTERVAL_MS: '3000' }));
    const tags = [{ name: 'Note', value: 'n'.repeat(3900) }];
    const items = await Promise.all(Array.from({ length: 45 }, () => signedItem(signers.arweave(), 'x', tags)));
    for (const item of items) expect((await upload(service, item.getRaw())).status).to.equal(200);
    await eventually(
      () => queuedIds(gateway),
      (ids) => ids.length === items.length,
      'every header queued',
    );
    expect(queuedIds(gateway).sort()).to.deep.equal(items.map((i) => i.id).sort());
    expect(gateway.answers.get(200)).to.be.at.least(3);
    expect(gateway.answers.has(413)).to.equal(false);
  });

  for (const fault of [
    { name: 'answering 500', status: 500, key: KEY, apply: (g: OpticalGatewayDouble) => g.failWith(500) },
    { name: 'answering 401 (a wrong key)', status: 401, key: 'not-the-gateway-key', apply: () => {} },
  ]) {
    it(`${fault.name}: uploads still get receipts, posts are retried, the failure is recorded, and receipts drop the gateway`, async () => {
      gateway = await startOpticalGateway(KEY);
      fault.apply(gateway);
      service = await startTestService(bridgeEnv(gateway.url, fault.key, { OPTICAL_BRIDGE_MAX_ATTEMPTS: '3' }));
      const item = await signedItem(signers.arweave());
      const { status, receipt } = await upload(service, item.getRaw());
      expect(status).to.equal(200);
      expect(receipt.fastFinalityIndexes).to.deep.equal([]);
      const [event] = await eventually(
        () => bridgedEvents(service),
        (e) => e.length === 1,
        'the failure recorded',
      );
      expect(event).to.deep.include({
        id: item.id,
        items: [item.id],
        gateway: gateway.host,
        ok: false,
        status: fault.status,
        attempts: 3,
        error: `answered ${fault.status}`,
      });
      expect(gateway.queued).to.deep.equal([]);
      expect(gateway.answers.get(fault.status)).to.be.at.least(3);
      const later = await upload(service, (await signedItem(signers.ethereum())).getRaw());
      expect([later.status, later.receipt.fastFinalityIndexes]).to.deep.equal([200, []]);
    });
  }

  it('down, then up: uploads get receipts meanwhile; the headers are posted once it is back, and receipts name it again', async () => {
    gateway = await startOpticalGateway(KEY);
    service = await startTestService(bridgeEnv(gateway.url, KEY, { OPTICAL_BRIDGE_MAX_ATTEMPTS: '1000' }));
    await eventually(
      async () => (await upload(service, (await signedItem(signers.ethereum())).getRaw())).receipt.fastFinalityIndexes,
      (f) => f.length === 1,
      'healthy first',
    );
    await eventually(
      () => bridgedEvents(service),
      (e) => e.length === 1,
      'the first item bridged',
    );
    await gateway.down();
    const items = await Promise.all([1, 2, 3].map(() => signedItem(signers.arweave())));
    const receipts = await Promise.all(items.map((i) => upload(service, i.getRaw())));
    expect(receipts.map((r) => r.status)).to.deep.equal([200, 200, 200]);
    await eventually(
      async () => (await upload(service, (await signedItem(signers.ethereum())).getRaw())).receipt.fastFinalityIndexes,
      (f) => f.length === 0,
      'receipts without the gateway while it is down',
    );
    // three posts refused while down: those first in line were in each
    const postsNow = service.opticalBridge!.stats().posts[gateway.host]!;
    await eventually(
      () => service.opticalBridge!.stats().posts[gateway.host]!,
      (n) => n >= postsNow + 3,
      'posts tried again',
    );
    await gateway.up();
    await eventually(
      () => queuedIds(gateway),
      (ids) => items.every((i) => ids.includes(i.id)),
      'the headers posted once it is back',
    );
    const events = await eventually(
      () => bridgedEvents(service),
      (e) => items.every((i) => itemsOf(e).includes(i.id)),
      'their outcomes',
    );
    for (const i of items) expect(events.find((x) => x.items.includes(i.id))).to.deep.include({ ok: true, status: 200 });
    expect(Math.max(...events.slice(1).map((e) => e.attempts))).to.be.at.least(3);
    await eventually(
      async () => (await upload(service, (await signedItem(signers.ethereum())).getRaw())).receipt.fastFinalityIndexes,
      (f) => f.length === 1 && f[0] === gateway.host,
      'receipts naming the gateway again',
    );
  });

  it('slow (answers held): uploads are answered meanwhile; posts time out and are retried; all land once it answers', async () => {
    gateway = await startOpticalGateway(KEY);
    service = await startTestService(bridgeEnv(gateway.url, KEY, { OPTICAL_BRIDGE_TIMEOUT_MS: '200', OPTICAL_BRIDGE_MAX_ATTEMPTS: '1000' }));
    gateway.slow();
    const items = await Promise.all([1, 2, 3, 4].map(() => signedItem(signers.ethereum())));
    await upload(service, items[0]!.getRaw());
    await eventually(
      () => gateway.held(),
      (n) => n >= 2,
      'a post held, then posted again after its time limit',
    );
    // held answers do not hold uploads
    const answered = await Promise.all(items.slice(1).map((i) => upload(service, i.getRaw())));
    expect(answered.map((a) => a.status)).to.deep.equal([200, 200, 200]);
    expect(gateway.held()).to.be.at.least(2);
    gateway.release();
    await eventually(
      () => queuedIds(gateway),
      (ids) => items.every((i) => ids.includes(i.id)),
      'every header queued once it answers',
    );
    await eventually(
      () => bridgedEvents(service),
      (e) => items.every((i) => itemsOf(e).includes(i.id)),
      'every outcome recorded',
    );
  });
});
