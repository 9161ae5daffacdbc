import { expect } from 'chai';
import type { EventStore, RecordedEvent } from '../../src/ports/eventStore.js';
import { dataItemStream, type DataItemId } from '../../src/domain/ids.js';
import { receiveDataItem } from '../../src/app/acceptance/receiveDataItem.js';
import { acceptDataItem, type AcceptDeps } from '../../src/app/acceptance/acceptDataItem.js';
import { recoverNestedIndexes } from '../../src/app/nested/recoverNested.js';
import { indexNestedItems, PART_MAX_BYTES } from '../../src/app/nested/recordNested.js';
import { appendSize } from '../../src/ports/eventStore.js';
import { uuidFromName } from '../../src/app/nested/eventIds.js';
import { collectionOf, nestedOffsetsProjection, pendingNestedIndexProjection } from '../../projections/index.js';
import { startTestService, type TestService } from '../support/testService.js';
import { signedItem, signers } from '../support/items.js';
import { bundleItem, twoLevels, type TwoLevels } from './support/nestedBundles.js';
import { fakeBundle } from './support/fakeEntries.js';
import { DataItemRepository } from '../../src/app/acceptance/dataItems.js';

/** A crash (or a stop) before a bundle item's nested index is complete leaves it to the recovery. */
describe('recovering the nested index of a bundle item left unindexed', function () {
  this.timeout(60_000);
  let service: TestService;
  let nested: TwoLevels;
  const MINUTE = 60_000;
  before(async () => {
    // free up to 64 MiB: bundles of thousands of entries need no credit
    service = await startTestService({ FREE_UPLOAD_LIMIT_BYTES: String(64 << 20) });
    nested = await twoLevels();
  });
  after(() => service?.close());

  /** accepted as an upload does, the process gone before its background indexing ran */
  async function acceptWithoutIndex(raw: Uint8Array) {
    const received = await receiveDataItem([raw], { blobStore: service.blobStore, maxSize: 1 << 30 });
    const { indexNested: _gone, ...deps }: AcceptDeps = service.multipart.accept;
    return acceptDataItem(received, { token: 'arweave', ctx: { requestId: 'crash-test' } }, deps);
  }
  async function streamOf(id: string): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = [];
    for await (const e of service.eventStore.readStream(dataItemStream(id as DataItemId))) events.push(e);
    return events;
  }
  const typesOf = async (id: string) => (await streamOf(id)).map((e) => e.type);
  const pending = async () => (await service.readStore.scan(collectionOf(pendingNestedIndexProjection), { limit: 100 })).map((d) => d.id);
  const caughtUp = async () => expect(await service.projections.waitFor(await service.eventStore.headPosition(), 10_000)).to.equal(true);
  const index = (eventStore: EventStore) => async (id: string) =>
    (await indexNestedItems({ items: new DataItemRepository(eventStore), blobStore: service.blobStore, freeMaxItems: 10_000, now: Date.now }, id, {
      correlationId: 'nested-index-recovery',
    })) !== undefined;
  const recover = (now: number, eventStore = service.eventStore) =>
    recoverNestedIndexes({ readStore: service.readStore, index: index(eventStore) }, { now, graceMs: MINUTE });

  it('lists the accepted bundle item as pending, leaves it alone within the grace period, then records its nested items once', async () => {
    const outcome = await acceptWithoutIndex(nested.root.getRaw());
    expect(outcome.kind).to.equal('accepted');
    expect(await typesOf(nested.root.id)).to.deep.equal(['DataItemAccepted']);
    await caughtUp();
    expect(await pending()).to.deep.equal([nested.root.id]);

    expect(await recover(Date.now())).to.equal(0);
    expect(await typesOf(nested.root.id)).to.deep.equal(['DataItemAccepted']);

    expect(await recover(Date.now() + MINUTE + 1_000)).to.equal(1);
    const events = await streamOf(nested.root.id);
    expect(events.map((e) => e.type)).to.deep.equal(['DataItemAccepted', 'NestedItemsIndexed']);
    expect(events[1]!.data).to.deep.include({ items: nested.expected, verified: true });
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

  it('resumes after the last part written, appending after the events of other kinds that came between', async () => {
    // entries that each fail their signature check: findings of about 200 bytes, three parts of them
    const entries = 6_000;
    const root = await bundleItem(signers.arweave(), fakeBundle(entries));
    await acceptWithoutIndex(root.getRaw());
    const stream = dataItemStream(root.id as DataItemId);

    // the process dies while appending the second part
    let appends = 0;
    const dying: EventStore = new Proxy(service.eventStore, {
      get: (target, name) => {
        if (name === 'append') {
          return (...args: Parameters<EventStore['append']>) => (++appends === 2 ? Promise.reject(new Error('process gone')) : target.append(...args));
        }
        const value: unknown = Reflect.get(target, name);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    let failure: unknown;
    await recover(Date.now() + MINUTE + 1_000, dying).catch((error: unknown) => (failure = error));
    expect(String(failure)).to.equal('Error: process gone');
    const [first] = (await streamOf(root.id)).slice(1);
    expect(await typesOf(root.id)).to.deep.equal(['DataItemAccepted', 'NestedItemsIndexed']);
    await caughtUp();
    expect(await pending()).to.include(root.id);

    // another writer's event on the item's stream (an engine's own type this service does not know)
    const other = {
      id: uuidFromName(`other/${root.id}`),
      type: 'SomethingElseHappened',
      data: { id: root.id },
      metadata: { correlationId: 'other', schemaVersion: 1 },
    };
    await service.eventStore.append(stream, [other], 1n);

    expect(await recover(Date.now() + MINUTE + 1_000)).to.equal(1);
    const events = await streamOf(root.id);
    const partEvents = events.filter((e) => e.type === 'NestedItemsIndexed');
    expect(events.map((e) => e.type)).to.deep.equal([
      'DataItemAccepted',
      'NestedItemsIndexed',
      'SomethingElseHappened',
      'NestedItemsIndexed',
      'NestedItemsIndexed',
    ]);
    // the part written before the crash is kept as it was, not written again
    expect(partEvents[0]!.id).to.equal(first!.id);
    const parts = partEvents.map((e) => e.data as { unindexed: { id: string }[]; more?: true });
    expect(parts.map((p) => [p.unindexed.length, p.more])).to.deep.equal([
      [2594, true],
      [2594, true],
      [812, undefined],
    ]);
    // split by size: each part as full as PART_MAX_BYTES (512 KiB) lets it be
    expect(partEvents.map((e) => appendSize([e]) <= PART_MAX_BYTES && appendSize([e]) > PART_MAX_BYTES - 1_000)).to.deep.equal([true, true, false]);
    // every finding once, in the order of the bundle
    const ids = parts.flatMap((p) => p.unindexed.map((u) => u.id));
    expect(ids.length).to.equal(entries);
    expect(new Set(ids).size).to.equal(entries);
    await caughtUp();
    expect(await pending()).to.not.include(root.id);
    expect(await recover(Date.now() + MINUTE + 1_000)).to.equal(0);
  });

  it('never lists an item whose payload is not a bundle', async () => {
    const plain = await signedItem(signers.ethereum(), 'not a bundle');
    await acceptWithoutIndex(plain.getRaw());
    await caughtUp();
    expect(await pending()).to.not.include(plain.id);
    expect(await typesOf(plain.id)).to.deep.equal(['DataItemAccepted']);
  });
});
