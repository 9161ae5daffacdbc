import { expect } from 'chai';
import type { RecordedEvent } from '../../src/ports/eventStore.js';
import { dataItemStream, type DataItemId } from '../../src/domain/ids.js';
import { startTestService, type TestService } from '../support/testService.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { bundleBytes, bundleItem, twoLevels, type TwoLevels } from './support/nestedBundles.js';
import { createUpload, postChunks } from '../support/multipart.js';

/** The service indexes nested items when it accepts a bundle item (DESIGN.md section 4). */
describe('accepting an item whose payload is a bundle', function () {
  this.timeout(30_000);
  let service: TestService;
  let nested: TwoLevels;
  before(async () => {
    service = await startTestService();
    nested = await twoLevels();
  });
  after(() => service?.close());

  const upload = (raw: Uint8Array) => fetch(`${service.url}/tx`, { method: 'POST', body: asBody(raw) });
  async function streamOf(id: string): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = [];
    for await (const e of service.eventStore.readStream(dataItemStream(id as DataItemId))) events.push(e);
    return events;
  }

  it('records every nested item right after the acceptance, before answering', async () => {
    expect((await upload(nested.root.getRaw())).status).to.equal(200);
    const events = await streamOf(nested.root.id);
    expect(events.map((e) => [e.type, e.revision])).to.deep.equal([
      ['DataItemAccepted', 0n],
      ['NestedItemsIndexed', 1n],
    ]);
    const data = events[1]!.data as { id: string; items: unknown[]; unindexed?: unknown; timestamp: number };
    expect({ id: data.id, items: data.items, unindexed: data.unindexed }).to.deep.equal({
      id: nested.root.id,
      items: nested.expected,
      unindexed: undefined,
    });
  });

  it('records every nested item of a bundle item uploaded in chunks too', async () => {
    const fresh = await twoLevels();
    const id = await createUpload(service.url);
    await postChunks(service.url, id, fresh.root.getRaw(), 3000);
    expect((await fetch(`${service.url}/chunks/arweave/${id}/-1`, { method: 'POST' })).status).to.equal(200);
    const events = await streamOf(fresh.root.id);
    expect(events.map((e) => e.type)).to.deep.equal(['DataItemAccepted', 'NestedItemsIndexed']);
    expect((events[1]!.data as { items: unknown[] }).items).to.deep.equal(fresh.expected);
  });

  it('records nothing again when the same item is uploaded again', async () => {
    expect((await upload(nested.root.getRaw())).status).to.equal(202);
    expect((await streamOf(nested.root.id)).map((e) => e.type)).to.deep.equal(['DataItemAccepted', 'NestedItemsIndexed']);
  });

  it('answers 404 for the offsets of a nested item until its root is in a bundle, and has no status for it', async () => {
    for (const path of [`/tx/${nested.inner1.id}/offsets`, `/tx/${nested.inner1.id}/status`]) {
      const res = await fetch(`${service.url}${path}`);
      expect(res.status, path).to.equal(404);
      expect(await res.text(), path).to.equal("TX doesn't exist");
    }
  });

  it('accepts a bundle item whose bundle is malformed, and records why its items are not indexed', async () => {
    const payload = Buffer.concat([await bundleBytes([nested.first]), Buffer.from([9])]);
    const root = await bundleItem(signers.ethereum(), payload);
    expect((await upload(root.getRaw())).status).to.equal(200);
    const events = await streamOf(root.id);
    expect(events.map((e) => e.type)).to.deep.equal(['DataItemAccepted', 'NestedItemsIndexed']);
    expect(events[1]!.data).to.deep.include({
      items: [],
      unindexed: [{ id: root.id, reason: `items end at byte ${payload.length - 1} of a bundle of ${payload.length} bytes` }],
    });
  });

  it('records nothing for an item that is not a bundle', async () => {
    const item = await signedItem(signers.ethereum(), 'plain', [{ name: 'Bundle-Format', value: 'json' }]);
    expect((await upload(item.getRaw())).status).to.equal(200);
    expect((await streamOf(item.id)).map((e) => e.type)).to.deep.equal(['DataItemAccepted']);
  });
});
