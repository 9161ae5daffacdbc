import { expect } from 'chai';
import type { BlobStore } from '../../src/ports/blobStore.js';
import { dataItemStream, type DataItemId } from '../../src/domain/ids.js';
import { receiveDataItem } from '../../src/app/receiveDataItem.js';
import { acceptDataItem } from '../../src/app/acceptDataItem.js';
import { recoverNestedIndexes } from '../../src/app/nested/recoverNested.js';
import { collectionOf, nestedOffsetsProjection, pendingNestedIndexProjection } from '../../projections/index.js';
import { startTestService, type TestService } from '../support/testService.js';
import { signedItem, signers } from '../support/items.js';
import { twoLevels, type TwoLevels } from './support/nestedBundles.js';

/** A crash between accepting a bundle item and recording its nested items leaves it to the recovery. */
describe('recovering the nested index of a bundle item left unindexed', function () {
  this.timeout(30_000);
  let service: TestService;
  let nested: TwoLevels;
  const MINUTE = 60_000;
  before(async () => {
    service = await startTestService();
    nested = await twoLevels();
  });
  after(() => service?.close());

  /** the blob store as the indexing step sees it when the process dies there: nothing can be read */
  const unreadable = (store: BlobStore): BlobStore =>
    new Proxy(store, {
      get: (target, name) => {
        if (name === 'read') return () => Promise.reject(new Error('process gone'));
        const value: unknown = Reflect.get(target, name);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });

  async function acceptWithoutIndex(raw: Uint8Array) {
    const received = await receiveDataItem([raw], { blobStore: service.blobStore, maxSize: 1 << 30 });
    const deps = { ...service.multipart.accept, blobStore: unreadable(service.blobStore) };
    return acceptDataItem(received, { token: 'arweave', ctx: { requestId: 'crash-test' } }, deps);
  }
  async function typesOf(id: string) {
    const types: string[] = [];
    for await (const e of service.eventStore.readStream(dataItemStream(id as DataItemId))) types.push(e.type);
    return types;
  }
  const pending = async () =>
    (await service.readStore.scan(collectionOf(pendingNestedIndexProjection), { limit: 100 })).map((d) => d.id);
  const caughtUp = async () => expect(await service.projections.waitFor(await service.eventStore.headPosition(), 5_000)).to.equal(true);
  const recover = (now: number) => recoverNestedIndexes({ eventStore: service.eventStore, blobStore: service.blobStore, readStore: service.readStore }, { now, graceMs: MINUTE });

  it('lists the accepted bundle item as pending, leaves it alone within the grace period, then records its nested items once', async () => {
    const outcome = await acceptWithoutIndex(nested.root.getRaw());
    expect(outcome.kind).to.equal('accepted');
    expect(await typesOf(nested.root.id)).to.deep.equal(['DataItemAccepted']);
    await caughtUp();
    expect(await pending()).to.deep.equal([nested.root.id]);

    expect(await recover(Date.now())).to.equal(0);
    expect(await typesOf(nested.root.id)).to.deep.equal(['DataItemAccepted']);

    expect(await recover(Date.now() + MINUTE + 1_000)).to.equal(1);
    const events = [];
    for await (const e of service.eventStore.readStream(dataItemStream(nested.root.id as DataItemId))) events.push(e);
    expect(events.map((e) => e.type)).to.deep.equal(['DataItemAccepted', 'NestedItemsIndexed']);
    expect((events[1]!.data as { items: unknown[] }).items).to.deep.equal(nested.expected);
    expect(events[1]!.metadata.correlationId).to.equal('nested-index-recovery');
    await caughtUp();
    expect(await pending()).to.deep.equal([]);
    expect(await recover(Date.now() + MINUTE + 1_000)).to.equal(0);
  });

  it('gives the nested items their offsets in the nested-offsets read model after the recovery', async () => {
    const fresh = await twoLevels();
    await acceptWithoutIndex(fresh.root.getRaw());
    expect(await recover(Date.now() + MINUTE + 1_000)).to.equal(1);
    await caughtUp();
    const doc = await service.readStore.get<{ rootId: string }>(collectionOf(nestedOffsetsProjection), fresh.inner1.id);
    expect(doc?.doc.rootId).to.equal(fresh.root.id);
  });

  it('never lists an item whose payload is not a bundle', async () => {
    const plain = await signedItem(signers.ethereum(), 'not a bundle');
    await acceptWithoutIndex(plain.getRaw());
    await caughtUp();
    expect(await pending()).to.not.include(plain.id);
    expect(await typesOf(plain.id)).to.deep.equal(['DataItemAccepted']);
  });
});
