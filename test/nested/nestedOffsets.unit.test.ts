import { expect } from 'chai';
import type { RecordedEvent } from '../../src/ports/eventStore.js';
import type { ReadStore } from '../../src/ports/readStore.js';
import type { DomainEvent } from '../../src/domain/events.js';
import type { NestedItem, NestedItemsIndexed } from '../../src/domain/dataItem/events.js';
import type { DataItemId } from '../../src/domain/ids.js';
import { openSqliteReadStore } from '../../src/adapters/sqlite/readStore.js';
import { applyEvents, type PositionedDocument } from '../../projections/apply.js';
import { allProjections, collectionOf, nestedOffsetsProjection, type AnyProjection } from '../../projections/index.js';
import { createTxOffsetsQuery } from '../../src/queries/txOffsets.js';
import { dataItemAccepted, itemId } from '../support/events.js';

const ROOT = itemId(1);
const DAY = 24 * 60 * 60 * 1000;
const ACCEPTED_AT = 1_700_000_000_000;

const nestedItem = (n: number, overrides: Partial<NestedItem> = {}): NestedItem => ({
  id: itemId(100 + n),
  parentId: ROOT,
  startOffsetInParentDataItemPayload: 32 + 64 * 2 + 10 * n,
  offsetInRootItem: 1044 + 32 + 64 * 2 + 10 * n,
  rawContentLength: 10,
  payloadDataStart: 4,
  payloadContentType: 'text/plain',
  depth: 1,
  ...overrides,
});

/** as recorded now: every item's signature verified */
const indexed = (rootId: string, items: NestedItem[]): NestedItemsIndexed => ({
  type: 'NestedItemsIndexed',
  data: { id: rootId, items, timestamp: ACCEPTED_AT, verified: true },
});
/** as earlier versions recorded it: ids checked, signatures not */
const indexedUnverified = (rootId: string, items: NestedItem[]): NestedItemsIndexed => ({
  type: 'NestedItemsIndexed',
  data: { id: rootId, items, timestamp: ACCEPTED_AT },
});

const planned = (ids: string[], offset: number): DomainEvent => ({
  type: 'BundlePlanned',
  data: {
    planId: 'plan-1',
    timestamp: ACCEPTED_AT,
    items: ids.map((id) => ({ id, size: 1100, offset })),
    headerSize: 96,
    totalSize: 96 + 1100,
  },
});

const prepared = (ids: string[]): DomainEvent => ({
  type: 'BundlePrepared',
  data: {
    planId: 'plan-1',
    timestamp: ACCEPTED_AT,
    itemIds: ids,
    txId: 'B'.repeat(43),
    reward: '1',
    anchor: 'anchor',
    dataRoot: 'root',
    dataSize: 1196,
    anchorHeight: 1,
    tx: {},
  },
});

function project(p: AnyProjection, events: DomainEvent[], start = new Map<string, PositionedDocument<unknown>>()) {
  const docs = new Map(start);
  applyEvents(
    p,
    events.map((event, i) => ({ event, recorded: { position: BigInt(i + 1) } as RecordedEvent })),
    docs,
  );
  return docs;
}

describe('nested offsets projection', () => {
  it('keeps one document per nested item, with its root', () => {
    const docs = project(nestedOffsetsProjection, [indexed(ROOT, [nestedItem(0), nestedItem(1, { parentId: itemId(100), depth: 2 })])]);
    expect([...docs.entries()]).to.deep.equal([
      [itemId(100), { position: 1n, doc: { rootId: ROOT, ...withoutId(nestedItem(0)), verified: true } }],
      [itemId(101), { position: 1n, doc: { rootId: ROOT, ...withoutId(nestedItem(1, { parentId: itemId(100), depth: 2 })), verified: true } }],
    ]);
  });

  it('keeps the first root of an item nested in two uploads', () => {
    const secondRoot = indexed(itemId(2), [nestedItem(0, { offsetInRootItem: 5000 })]);
    const docs = project(nestedOffsetsProjection, [indexed(ROOT, [nestedItem(0)]), secondRoot]);
    expect(docs.get(itemId(100))).to.deep.equal({ position: 2n, doc: { rootId: ROOT, ...withoutId(nestedItem(0)), verified: true } });
  });

  it('replaces a place recorded without a signature check (an earlier version) by the first verified one', () => {
    const claim = indexedUnverified(itemId(2), [nestedItem(0, { offsetInRootItem: 5000 })]);
    const genuine = indexed(ROOT, [nestedItem(0)]);
    const docs = project(nestedOffsetsProjection, [claim, indexedUnverified(itemId(3), [nestedItem(0, { offsetInRootItem: 7000 })]), genuine]);
    expect(docs.get(itemId(100))).to.deep.equal({ position: 3n, doc: { rootId: ROOT, ...withoutId(nestedItem(0)), verified: true } });
  });

  it('keeps the first unverified place while no verified one comes', () => {
    const docs = project(nestedOffsetsProjection, [indexedUnverified(itemId(2), [nestedItem(0)]), indexedUnverified(itemId(3), [nestedItem(0)])]);
    expect(docs.get(itemId(100))).to.deep.equal({ position: 2n, doc: { rootId: itemId(2), ...withoutId(nestedItem(0)) } });
  });

  it('never replaces a verified place, neither by an unverified one nor by another verified one', () => {
    const genuine = indexed(ROOT, [nestedItem(0)]);
    const later = [indexedUnverified(itemId(2), [nestedItem(0, { offsetInRootItem: 5000 })]), indexed(itemId(3), [nestedItem(0, { offsetInRootItem: 7000 })])];
    const docs = project(nestedOffsetsProjection, [genuine, ...later]);
    expect(docs.get(itemId(100))).to.deep.equal({ position: 3n, doc: { rootId: ROOT, ...withoutId(nestedItem(0)), verified: true } });
  });

  it('changes nothing when the same events are applied twice', () => {
    const events = [indexed(ROOT, [nestedItem(0), nestedItem(1)]), indexed(itemId(2), [nestedItem(2)])];
    const once = project(nestedOffsetsProjection, events);
    expect([...project(nestedOffsetsProjection, events, once).entries()]).to.deep.equal([...once.entries()]);
  });

  it('is one of the projections the service runs', () => {
    expect(allProjections).to.include(nestedOffsetsProjection);
  });
});

describe('offsets of nested items', () => {
  let readStore: ReadStore;
  let now = ACCEPTED_AT;
  const query = () => createTxOffsetsQuery({ readStore, retentionMs: 365 * DAY, now: () => now });
  const offsetsOf = (id: string) => query()(id as DataItemId);

  async function given(events: DomainEvent[]) {
    readStore = openSqliteReadStore({ path: ':memory:' });
    for (const p of allProjections) {
      const docs = project(p, events);
      await readStore.commit(
        [...docs].map(([id, d]) => ({ collection: collectionOf(p), id, doc: d.doc, position: d.position })),
        [],
      );
    }
  }
  afterEach(() => readStore.close());

  it("adds the nested item's place in its root to the root's offset in the bundle", async () => {
    const items = [nestedItem(0), nestedItem(1, { parentId: itemId(100), depth: 2 })];
    await given([dataItemAccepted(ROOT), indexed(ROOT, items), planned([ROOT], 96), prepared([ROOT])]);
    expect(await offsetsOf(itemId(101))).to.deep.equal({
      rootBundleId: 'B'.repeat(43),
      startOffsetInRootBundle: 96 + 1044 + 32 + 128 + 10,
      rawContentLength: 10,
      payloadContentType: 'text/plain',
      payloadDataStart: 4,
      payloadContentLength: 6,
      parentDataItemId: itemId(100),
      startOffsetInParentDataItemPayload: 32 + 128 + 10,
    });
  });

  it("has none until the root's bundle transaction is known", async () => {
    await given([dataItemAccepted(ROOT), indexed(ROOT, [nestedItem(0)]), planned([ROOT], 96)]);
    expect(await offsetsOf(itemId(100))).to.equal(undefined);
  });

  it('has none once the root was accepted longer ago than the retention', async () => {
    await given([dataItemAccepted(ROOT), indexed(ROOT, [nestedItem(0)]), planned([ROOT], 96), prepared([ROOT])]);
    now = ACCEPTED_AT + 365 * DAY;
    expect(await offsetsOf(itemId(100))).to.include({ startOffsetInRootBundle: 96 + 1044 + 32 + 128 });
    now = ACCEPTED_AT + 365 * DAY + 1;
    expect(await offsetsOf(itemId(100))).to.equal(undefined);
    now = ACCEPTED_AT;
  });

  it('answers a top-level item from its own status, even when it is nested in another upload too', async () => {
    const alsoTop = itemId(100);
    await given([dataItemAccepted(ROOT), indexed(ROOT, [nestedItem(0)]), dataItemAccepted(alsoTop), planned([ROOT], 96), prepared([ROOT])]);
    expect(await offsetsOf(alsoTop)).to.equal(undefined);
    expect(await offsetsOf(ROOT)).to.deep.equal({
      rootBundleId: 'B'.repeat(43),
      startOffsetInRootBundle: 96,
      rawContentLength: 1100,
      payloadContentType: 'text/plain',
      payloadDataStart: 1044,
      payloadContentLength: 56,
    });
  });

  it('has none for an id nobody uploaded nor nested', async () => {
    await given([dataItemAccepted(ROOT), indexed(ROOT, [nestedItem(0)]), planned([ROOT], 96), prepared([ROOT])]);
    expect(await offsetsOf(itemId(999))).to.equal(undefined);
  });
});

function withoutId({ id: _, ...rest }: NestedItem) {
  return rest;
}
