import { createHash } from 'node:crypto';
import { expect } from 'chai';
import type { DataItem } from 'arbundles';
import { appendSize, MAX_APPEND_BYTES, type RecordedEvent } from '../../src/ports/eventStore.js';
import type { NestedItem, NestedItemsIndexed } from '../../src/domain/dataItem/events.js';
import { dataItemStream, type DataItemId } from '../../src/domain/ids.js';
import { receiveDataItem } from '../../src/app/acceptance/receiveDataItem.js';
import { acceptDataItem, type AcceptDeps } from '../../src/app/acceptance/acceptDataItem.js';
import { indexNestedItems, PART_MAX_BYTES } from '../../src/app/nested/recordNested.js';
import { toNewEvent } from '../../src/domain/events.js';
import { uuidFromName } from '../../src/app/nested/eventIds.js';
import { collectionOf, nestedOffsetsProjection, pendingNestedIndexProjection } from '../../projections/index.js';
import type { NestedOffsetsDocument } from '../../projections/nestedOffsets.js';
import { startTestService, type TestService } from '../support/testService.js';
import { asBody, signers } from '../support/items.js';
import { bundleItem } from './support/nestedBundles.js';
import { ed25519Key, genuineEntry, rawBundle } from './support/fakeEntries.js';
import { nestedIndexed } from './support/indexed.js';
import { DataItemRepository } from '../../src/app/acceptance/dataItems.js';

const ENTRIES = 10_000;
/**
 * a content type of 442 bytes, legal (tags fit 4096 bytes): recorded twice per item (its content type and
 * its tags) beside its owner, which makes an item of the index 1,262 bytes, and 1,000 such items a 1.3 MB event
 */
const contentType = (n: number) => `application/x-${String(n).padStart(5, '0')}-${'t'.repeat(422)}`;

/**
 * A bundle item of 10,000 genuine items: its nested index is about 13 MB of events, which no single
 * append may carry (EventStoreDB refuses more than 1 MiB, and so does the SQLite store now).
 */
describe('the nested index of a bundle of 10,000 items', function () {
  this.timeout(300_000);
  let service: TestService;
  let entries: { id: string; raw: Buffer }[];
  let key: ReturnType<typeof ed25519Key>;
  /** the resumption tests take the first 2,000 (5 parts): each nested signature check costs about 1 ms */
  const SOME = 2_000;

  before(async () => {
    service = await startTestService({ FREE_UPLOAD_LIMIT_BYTES: String(64 << 20), NESTED_FREE_MAX_ITEMS: String(ENTRIES) });
    key = ed25519Key();
    entries = Array.from({ length: ENTRIES }, (_, n) => genuineEntry(key, Buffer.from(`nested item ${n}`), [{ name: 'Content-Type', value: contentType(n) }]));
  });
  after(() => service?.close());

  async function streamOf(id: string): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = [];
    for await (const e of service.eventStore.readStream(dataItemStream(id as DataItemId))) events.push(e);
    return events;
  }
  const partsOf = async (id: string) => (await streamOf(id)).filter((e) => e.type === 'NestedItemsIndexed');

  /** where each of the first `count` entries sits in `root`, whose payload is their bundle, as the index must record it */
  function expectedItems(root: DataItem, count = ENTRIES): NestedItem[] {
    let offset = 32 + 64 * count;
    return entries.slice(0, count).map((entry, n) => {
      const place: NestedItem = {
        id: entry.id,
        parentId: root.id,
        startOffsetInParentDataItemPayload: offset,
        offsetInRootItem: root.getStartOfData() + offset,
        rawContentLength: entry.raw.length,
        payloadDataStart: entry.raw.length - `nested item ${n}`.length,
        payloadContentType: contentType(n),
        depth: 1,
        owner: createHash('sha256').update(key.owner).digest('base64url'),
        signatureType: 2,
        tags: [{ name: 'Content-Type', value: contentType(n) }],
      };
      offset += entry.raw.length;
      return place;
    });
  }

  /** accepted as an upload does, the process gone before its background indexing ran */
  async function acceptWithoutIndex(raw: Uint8Array) {
    const received = await receiveDataItem([raw], { blobStore: service.blobStore, maxSize: 1 << 30 });
    const { indexNested: _gone, ...deps }: AcceptDeps = service.multipart.accept;
    return acceptDataItem(received, { token: 'arweave', ctx: { requestId: 'crash-test' } }, deps);
  }

  it('records every item with its offsets, in parts that each fit an append', async () => {
    const root = await bundleItem(signers.ethereum(), rawBundle(entries));
    const res = await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(root.getRaw()) });
    await res.arrayBuffer();
    expect(res.status).to.equal(200);
    await nestedIndexed(service, root.id, 240_000);

    const parts = await partsOf(root.id);
    const sizes = parts.map((e) => appendSize([e]));
    // 13 MB of index, in 25 parts of at most 512 KiB
    expect(sizes.reduce((a, b) => a + b, 0)).to.be.above(12 * MAX_APPEND_BYTES);
    expect(parts.length).to.equal(25);
    expect(sizes.every((size) => size <= PART_MAX_BYTES)).to.equal(true);
    const data = parts.map((e) => e.data as NestedItemsIndexed['data']);
    expect(data.map((d) => d.more)).to.deep.equal([...Array.from({ length: 24 }, () => true), undefined]);
    expect(data.flatMap((d) => d.items)).to.deep.equal(expectedItems(root));
    expect(data.every((d) => d.unindexed === undefined && d.verified === true)).to.equal(true);

    // every item has its place in the nested-offsets read model, and the root is no longer pending
    const ids = entries.map((e) => e.id);
    const docs = await service.readStore.getMany<NestedOffsetsDocument>(collectionOf(nestedOffsetsProjection), ids);
    expect(ids.filter((id) => docs.get(id)?.doc.rootId !== root.id)).to.deep.equal([]);
    expect(docs.get(ids[ENTRIES - 1]!)?.doc.offsetInRootItem).to.equal(expectedItems(root)[ENTRIES - 1]!.offsetInRootItem);
    expect(await service.readStore.get(collectionOf(pendingNestedIndexProjection), root.id)).to.equal(undefined);
  });

  it('resumes after the findings of parts an earlier version wrote, whatever their size, recording none twice', async () => {
    const root = await bundleItem(signers.ethereum(), rawBundle(entries.slice(0, SOME)));
    await acceptWithoutIndex(root.getRaw());
    const expected = expectedItems(root, SOME);
    // an earlier version crashed after its first part, of its own size: 500 items
    const stream = dataItemStream(root.id as DataItemId);
    const earlier: NestedItemsIndexed = {
      type: 'NestedItemsIndexed',
      data: { id: root.id, items: expected.slice(0, 500), timestamp: 1, verified: true, more: true },
    };
    await service.eventStore.append(stream, [toNewEvent(earlier, uuidFromName(`NestedItemsIndexed/${root.id}/0`), { correlationId: 'earlier' })], 0n);

    const outcome = await indexNestedItems({ items: service.items, blobStore: service.blobStore, freeMaxItems: ENTRIES, now: Date.now }, root.id, {
      correlationId: 'recovery',
    });
    expect(outcome).to.deep.include({ appended: 4, items: SOME, unindexed: 0 });
    const data = (await partsOf(root.id)).map((e) => e.data as NestedItemsIndexed['data']);
    expect(data.length).to.equal(5);
    expect(data.flatMap((d) => d.items)).to.deep.equal(expected);
    expect(data.at(-1)!.more).to.equal(undefined);
  });

  it('completes, after a crash between parts, what the crashed run left', async () => {
    const root = await bundleItem(signers.ethereum(), rawBundle(entries.slice(0, SOME)));
    await acceptWithoutIndex(root.getRaw());
    const index = (eventStore = service.eventStore) =>
      indexNestedItems({ items: new DataItemRepository(eventStore), blobStore: service.blobStore, freeMaxItems: ENTRIES, now: Date.now }, root.id, {
        correlationId: 'recovery',
      });
    // the process dies on its third append
    let appends = 0;
    const dying = Object.assign(Object.create(service.eventStore) as typeof service.eventStore, {
      append: (...args: Parameters<TestService['eventStore']['append']>) =>
        ++appends === 3 ? Promise.reject(new Error('process gone')) : service.eventStore.append(...args),
    });
    let failure: unknown;
    await index(dying).catch((error: unknown) => (failure = error));
    expect(String(failure)).to.equal('Error: process gone');
    const before = await partsOf(root.id);
    expect(before.length).to.equal(2);

    expect(await index()).to.deep.include({ appended: 3, items: SOME, unindexed: 0 });
    const after = await partsOf(root.id);
    // the parts written before the crash are kept, not written again
    expect(after.slice(0, 2).map((e) => e.id)).to.deep.equal(before.map((e) => e.id));
    expect(after.length).to.equal(5);
    expect(after.flatMap((e) => (e.data as NestedItemsIndexed['data']).items)).to.deep.equal(expectedItems(root, SOME));
    expect(await index()).to.equal(undefined);
  });

  it('records each item once when two runs index the same root at the same time (the recovery of two processes)', async () => {
    const root = await bundleItem(signers.ethereum(), rawBundle(entries.slice(0, SOME)));
    await acceptWithoutIndex(root.getRaw());
    const index = () =>
      indexNestedItems({ items: service.items, blobStore: service.blobStore, freeMaxItems: ENTRIES, now: Date.now }, root.id, {
        correlationId: 'recovery',
      });
    const outcomes = await Promise.all([index(), index()]);
    expect(outcomes.map((o) => o?.items)).to.deep.equal([SOME, SOME]);
    // the same part from both is kept once (same findings, same event id); none is written twice
    expect((await partsOf(root.id)).length).to.equal(5);
    const data = (await partsOf(root.id)).map((e) => e.data as NestedItemsIndexed['data']);
    expect(data.flatMap((d) => d.items)).to.deep.equal(expectedItems(root, SOME));
    expect(data.map((d) => d.more ?? false).lastIndexOf(false)).to.equal(data.length - 1);
    expect(data.filter((d) => d.more === undefined).length).to.equal(1);
  });

  it('leaves out of its next part what a racing run of another split recorded meanwhile', async () => {
    const root = await bundleItem(signers.ethereum(), rawBundle(entries.slice(0, SOME)));
    await acceptWithoutIndex(root.getRaw());
    const expected = expectedItems(root, SOME);
    const stream = dataItemStream(root.id as DataItemId);
    // just before this run's second part, another run (parts of its own size) records the next 100 items
    let appends = 0;
    const racing = Object.assign(Object.create(service.eventStore) as typeof service.eventStore, {
      append: async (...args: Parameters<TestService['eventStore']['append']>) => {
        if (++appends === 2) {
          const recorded = (await partsOf(root.id)).flatMap((e) => (e.data as NestedItemsIndexed['data']).items).length;
          const other: NestedItemsIndexed = {
            type: 'NestedItemsIndexed',
            data: { id: root.id, items: expected.slice(recorded, recorded + 100), timestamp: 1, verified: true, more: true },
          };
          await service.eventStore.append(stream, [toNewEvent(other, uuidFromName(`other/${root.id}`), { correlationId: 'other' })], args[2]);
        }
        return service.eventStore.append(...args);
      },
    });
    const outcome = await indexNestedItems(
      { items: new DataItemRepository(racing), blobStore: service.blobStore, freeMaxItems: ENTRIES, now: Date.now },
      root.id,
      {
        correlationId: 'recovery',
      },
    );
    expect(outcome).to.deep.include({ appended: 5, items: SOME });
    const data = (await partsOf(root.id)).map((e) => e.data as NestedItemsIndexed['data']);
    // its second part (415 items) less the 100 the other run took
    expect(data.map((d) => d.items.length)).to.deep.equal([415, 100, 315, 415, 415, 340]);
    expect(data.flatMap((d) => d.items)).to.deep.equal(expected);
  });
});
