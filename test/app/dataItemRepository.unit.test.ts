import { expect } from 'chai';
import { openSqliteEventStore } from '../../src/adapters/sqlite/eventStore.js';
import { DataItemRepository } from '../../src/app/acceptance/dataItems.js';
import { nestedPartId } from '../../src/app/nested/eventIds.js';
import { dataItemStream, type DataItemId } from '../../src/domain/ids.js';
import { WrongExpectedRevision, type EventStore, type RecordedEvent } from '../../src/ports/eventStore.js';
import { dataItemAccepted, itemId } from '../support/events.js';

const id = itemId(1) as DataItemId;
const ctx = { correlationId: 't' };

describe('data item repository', () => {
  let store: EventStore;
  let reads: number;
  /** the store, counting the streams read */
  let counted: EventStore;
  beforeEach(() => {
    store = openSqliteEventStore({ path: ':memory:' });
    reads = 0;
    counted = Object.assign(Object.create(store) as EventStore, {
      readStream: (...args: Parameters<EventStore['readStream']>) => {
        reads++;
        return store.readStream(...args);
      },
    });
  });
  afterEach(() => store.close());

  const streamOf = async (): Promise<RecordedEvent[]> => {
    const events: RecordedEvent[] = [];
    for await (const e of store.readStream(dataItemStream(id))) events.push(e);
    return events;
  };

  it('creates the stream of a new item with its acceptance, without reading the stream', async () => {
    const accepted = dataItemAccepted(id);
    const { events, position } = await new DataItemRepository(counted).create({ type: 'AcceptDataItem', data: accepted.data }, ctx);
    expect(events).to.deep.equal([accepted]);
    expect(reads).to.equal(0);
    const stream = await streamOf();
    expect(stream.map((e) => [e.type, e.revision, e.position])).to.deep.equal([['DataItemAccepted', 0n, position]]);
  });

  it('fails a creation with WrongExpectedRevision when the stream exists, and appends nothing (a racing acceptance won)', async () => {
    await new DataItemRepository(store).create({ type: 'AcceptDataItem', data: dataItemAccepted(id, { timestamp: 1 }).data }, ctx);
    const second = new DataItemRepository(store).create({ type: 'AcceptDataItem', data: dataItemAccepted(id, { timestamp: 2 }).data }, ctx);
    const error = await second.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(WrongExpectedRevision.is(error)).to.equal(true);
    expect((await streamOf()).map((e) => (e.data as { timestamp: number }).timestamp)).to.deep.equal([1]);
  });

  it('names a part of a nested index by the findings it holds, so a retried append is stored once', async () => {
    const items = new DataItemRepository(store);
    await items.create({ type: 'AcceptDataItem', data: dataItemAccepted(id, { nestedBundle: true }).data }, ctx);
    const unindexed = { unindexed: { id: itemId(2), reason: 'signature does not verify' } };
    await items.execute({ type: 'RecordNestedPart', data: { id, first: 0, found: [unindexed, unindexed], more: true, now: 5 } }, ctx);
    await items.execute({ type: 'RecordNestedPart', data: { id, first: 2, found: [unindexed], more: false, now: 6 } }, ctx);
    const parts = (await streamOf()).filter((e) => e.type === 'NestedItemsIndexed');
    expect(parts.map((e) => e.id)).to.deep.equal([nestedPartId(id, 0, 2, true), nestedPartId(id, 2, 1, false)]);
  });

  const fail = (now: number) => ({ type: 'FailItem' as const, data: { id, attempts: 10, reason: 'dropped', now } });
  const requeue = { type: 'RequeueItem' as const, data: { id, by: 'ops', reason: 'healed', now: 7 } };

  it('answers and decides on what another process appended since it cached the item, reading only the events after the cached ones', async () => {
    const fromRevisions: (bigint | undefined)[] = [];
    const tracked = Object.assign(Object.create(store) as EventStore, {
      readStream: (...args: Parameters<EventStore['readStream']>) => {
        fromRevisions.push(args[1]?.fromRevision);
        return store.readStream(...args);
      },
    });
    const ours = new DataItemRepository(tracked);
    await ours.create({ type: 'AcceptDataItem', data: dataItemAccepted(id).data }, ctx);
    // another process (its own repository over the same store) fails the item
    await new DataItemRepository(store).execute(fail(5), ctx);
    const seen = await ours.read(id);
    expect(seen.status === 'accepted' && seen.failed?.reason).to.equal('dropped');
    // decided on the failed state: the requeue appends (on the cached, accepted-only state it would decide nothing)
    const { events } = await ours.execute(requeue, ctx);
    expect(events.map((e) => e.type)).to.deep.equal(['DataItemRequeued']);
    expect((await streamOf()).map((e) => e.type)).to.deep.equal(['DataItemAccepted', 'DataItemFailed', 'DataItemRequeued']);
    // the read after the creation starts past the acceptance it cached; the requeue's, past the failure
    expect(fromRevisions).to.deep.equal([1n, 2n]);
  });

  it("reads an item with the position of its stream's last event, none for an item never accepted", async () => {
    const items = new DataItemRepository(store);
    expect(await items.readWithPosition(id)).to.deep.equal({ state: { status: 'absent' } });
    await items.create({ type: 'AcceptDataItem', data: dataItemAccepted(id).data }, ctx);
    const { position } = await new DataItemRepository(store).execute(fail(5), ctx);
    const read = await items.readWithPosition(id);
    expect(read.position).to.equal(position);
    expect((await new DataItemRepository(store).readWithPosition(id)).position).to.equal(position);
  });

  it('runs commands on one item in one process one at a time: the second decides on what the first appended, with no conflicting append', async () => {
    let appends = 0;
    const appending = Object.assign(Object.create(store) as EventStore, {
      append: (...args: Parameters<EventStore['append']>) => {
        appends++;
        return store.append(...args);
      },
    });
    const items = new DataItemRepository(appending);
    await items.create({ type: 'AcceptDataItem', data: dataItemAccepted(id).data }, ctx);
    const [first, second] = await Promise.all([items.execute(fail(5), ctx), items.execute(fail(6), ctx)]);
    expect([first.events.length, second.events.length]).to.deep.equal([1, 0]);
    // the creation and one failure: the second command was never appended to conflict
    expect(appends).to.equal(2);
  });

  const bridged = (now: number) => ({
    type: 'RecordBridged' as const,
    data: { id, items: [id], gateway: 'gw.example', ok: true, status: 200, attempts: 1, now },
  });

  it('onCache: appends a decision made on the cached item without reading its stream', async () => {
    const items = new DataItemRepository(counted);
    await items.create({ type: 'AcceptDataItem', data: dataItemAccepted(id).data }, ctx);
    const { events } = await items.execute(bridged(5), ctx, undefined, { onCache: true });
    expect(events.map((e) => e.type)).to.deep.equal(['DataItemBridged']);
    expect(reads).to.equal(0);
    expect((await streamOf()).map((e) => [e.type, e.revision])).to.deep.equal([
      ['DataItemAccepted', 0n],
      ['DataItemBridged', 1n],
    ]);
  });

  it('onCache: a cache behind the stream (another process appended) fails the append, which is made again after a read', async () => {
    const items = new DataItemRepository(counted);
    await items.create({ type: 'AcceptDataItem', data: dataItemAccepted(id).data }, ctx);
    await new DataItemRepository(store).execute(fail(5), ctx);
    await items.execute(bridged(6), ctx, undefined, { onCache: true });
    expect(reads).to.equal(1);
    expect((await streamOf()).map((e) => [e.type, e.revision])).to.deep.equal([
      ['DataItemAccepted', 0n],
      ['DataItemFailed', 1n],
      ['DataItemBridged', 2n],
    ]);
  });

  it('onCache: a decision of nothing on the cached item is made again on the stream read (the cache may be behind)', async () => {
    const items = new DataItemRepository(counted);
    // cached: nothing of the item (it was never seen in this process)...
    expect((await items.read(id)).status).to.equal('absent');
    // ...accepted since by another process: the bridge's outcome is recorded, not dropped
    await new DataItemRepository(store).create({ type: 'AcceptDataItem', data: dataItemAccepted(id).data }, ctx);
    const { events } = await items.execute(bridged(5), ctx, undefined, { onCache: true });
    expect(events.map((e) => e.type)).to.deep.equal(['DataItemBridged']);
    expect((await streamOf()).map((e) => e.type)).to.deep.equal(['DataItemAccepted', 'DataItemBridged']);
  });
});
