import { expect } from 'chai';
import type { RecordedEvent } from '../../src/ports/eventStore.js';
import type { BlobStore } from '../../src/ports/blobStore.js';
import { dataItemStream, type DataItemId } from '../../src/domain/ids.js';
import { toNewEvent } from '../../src/domain/events.js';
import { receiveDataItem } from '../../src/app/acceptance/receiveDataItem.js';
import { acceptDataItem, type AcceptDeps } from '../../src/app/acceptance/acceptDataItem.js';
import { indexNestedItems } from '../../src/app/nested/recordNested.js';
import { collectionOf, nestedOffsetsProjection, type NestedOffsetsDocument } from '../../projections/index.js';
import { startTestService, type TestService } from '../support/testService.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { bundleBytes, bundleItem, expectedPlaces, twoLevels, type TwoLevels } from './support/nestedBundles.js';
import { rawBundle } from './support/fakeEntries.js';
import { nestedIndexed } from './support/indexed.js';
import { createUpload, postChunks } from '../support/multipart.js';

/** The service indexes the items nested in a bundle item after accepting it (DESIGN.md section 4). */
describe('accepting an item whose payload is a bundle', function () {
  this.timeout(60_000);
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
  const placeOf = async (id: string) => (await service.readStore.get<NestedOffsetsDocument>(collectionOf(nestedOffsetsProjection), id))?.doc;

  it('records every nested item after the acceptance, each signature verified', async () => {
    expect((await upload(nested.root.getRaw())).status).to.equal(200);
    await nestedIndexed(service, nested.root.id);
    const events = await streamOf(nested.root.id);
    expect(events.map((e) => [e.type, e.revision])).to.deep.equal([
      ['DataItemAccepted', 0n],
      ['NestedItemsIndexed', 1n],
    ]);
    const data = events[1]!.data as { id: string; items: unknown[]; unindexed?: unknown; verified?: true; more?: true };
    expect({ id: data.id, items: data.items, unindexed: data.unindexed, verified: data.verified, more: data.more }).to.deep.equal({
      id: nested.root.id,
      items: nested.expected,
      unindexed: undefined,
      verified: true,
      more: undefined,
    });
    expect(await placeOf(nested.inner2.id)).to.deep.include({ rootId: nested.root.id, parentId: nested.middle.id, verified: true });
  });

  it('answers before the nested items are indexed: their reads may wait, the answer does not', async () => {
    const fresh = await twoLevels();
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const held: BlobStore = new Proxy(service.blobStore, {
      get: (target, name) => {
        if (name === 'read') return async (...args: Parameters<BlobStore['read']>) => (await gate, target.read(...args));
        const value: unknown = Reflect.get(target, name);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const indexing: Promise<unknown>[] = [];
    const deps: AcceptDeps = {
      ...service.multipart.accept,
      blobStore: held,
      indexNested: (rootId, metadata) => {
        const run = indexNestedItems({ items: service.items, blobStore: held, now: Date.now }, rootId, metadata);
        indexing.push(run);
        return run;
      },
    };
    const received = await receiveDataItem([fresh.root.getRaw()], { blobStore: service.blobStore, maxSize: 1 << 30 });
    const outcome = await acceptDataItem(received, { token: 'arweave', ctx: { requestId: 'answer-first' } }, deps);
    expect(outcome.kind).to.equal('accepted');
    expect(indexing).to.have.length(1);
    expect((await streamOf(fresh.root.id)).map((e) => e.type)).to.deep.equal(['DataItemAccepted']);
    open();
    await Promise.all(indexing);
    const events = await streamOf(fresh.root.id);
    expect(events.map((e) => e.type)).to.deep.equal(['DataItemAccepted', 'NestedItemsIndexed']);
    expect(events[1]!.metadata.correlationId).to.equal('answer-first');
  });

  it('records every nested item of a bundle item uploaded in chunks too', async () => {
    const fresh = await twoLevels();
    const id = await createUpload(service.url);
    await postChunks(service.url, id, fresh.root.getRaw(), 3000);
    expect((await fetch(`${service.url}/chunks/arweave/${id}/-1`, { method: 'POST' })).status).to.equal(200);
    const [part] = await nestedIndexed(service, fresh.root.id);
    expect((await streamOf(fresh.root.id)).map((e) => e.type)).to.deep.equal(['DataItemAccepted', 'NestedItemsIndexed']);
    expect(part!.items).to.deep.equal(fresh.expected);
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
    await nestedIndexed(service, root.id);
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

  describe("a bundle listing someone else's item id", () => {
    it('publishes no place for an entry that copies the header of another item but whose signature does not cover its bytes', async () => {
      const victim = await signedItem(signers.solana(), 'the genuine item');
      const forged = Buffer.from(victim.getRaw());
      forged[forged.length - 1]! ^= 1;
      const attacker = await bundleItem(signers.ethereum(), rawBundle([{ id: victim.id, raw: forged }]));
      expect((await upload(attacker.getRaw())).status).to.equal(200);
      const [part] = await nestedIndexed(service, attacker.id);
      expect(part!.items).to.deep.equal([]);
      expect(part!.unindexed).to.deep.equal([
        { id: victim.id, reason: `the item at byte 96 of the bundle in ${attacker.id} does not verify: signature of type 2 does not verify` },
      ]);
      expect(await placeOf(victim.id)).to.equal(undefined);

      // the genuine item, nested in a bundle uploaded later, gets its own verified place
      const genuine = await bundleItem(signers.arweave(), await bundleBytes([victim]));
      expect((await upload(genuine.getRaw())).status).to.equal(200);
      await nestedIndexed(service, genuine.id);
      const [place] = expectedPlaces(genuine, 0, [victim], 1);
      // nested-offsets keeps the place; the header's fields are the GraphQL read model's
      const { id: _id, owner: _o, signatureType: _s, tags: _t, ...where } = place!;
      expect(await placeOf(victim.id)).to.deep.equal({ rootId: genuine.id, ...where, verified: true });
    });

    it('replaces a place an earlier version recorded without a signature check by the verified one', async () => {
      const victim = await signedItem(signers.ethereum(), 'claimed before the upgrade');
      // an earlier version indexed a claim on it: only its id was checked
      const claimant = await bundleItem(signers.ethereum(), rawBundle([{ id: victim.id, raw: Buffer.alloc(200, 1) }]));
      const received = await receiveDataItem([claimant.getRaw()], { blobStore: service.blobStore, maxSize: 1 << 30 });
      const { indexNested: _earlier, ...deps }: AcceptDeps = service.multipart.accept;
      await acceptDataItem(received, { token: 'arweave', ctx: { requestId: 'earlier-version' } }, deps);
      const claimed = {
        id: victim.id,
        parentId: claimant.id,
        startOffsetInParentDataItemPayload: 96,
        offsetInRootItem: claimant.getStartOfData() + 96,
        rawContentLength: 200,
        payloadDataStart: 150,
        payloadContentType: 'text/html',
        depth: 1,
      };
      const earlier = toNewEvent(
        { type: 'NestedItemsIndexed', data: { id: claimant.id, items: [claimed], timestamp: Date.now() } },
        'e0e0e0e0-0000-4000-8000-000000000001',
        { correlationId: 'earlier-version' },
      );
      await service.eventStore.append(dataItemStream(claimant.id as DataItemId), [earlier], 0n);
      expect(await service.projections.waitFor(await service.eventStore.headPosition(), 10_000)).to.equal(true);
      expect(await placeOf(victim.id)).to.deep.include({ rootId: claimant.id, payloadContentType: 'text/html' });

      const genuine = await bundleItem(signers.ethereum(), await bundleBytes([victim]));
      expect((await upload(genuine.getRaw())).status).to.equal(200);
      await nestedIndexed(service, genuine.id);
      expect(await placeOf(victim.id)).to.deep.include({ rootId: genuine.id, offsetInRootItem: genuine.getStartOfData() + 96, verified: true });
    });
  });
});
