import { expect } from 'chai';
import type { RecordedEvent } from '../../src/ports/eventStore.js';
import type { DomainEvent } from '../../src/domain/events.js';
import { applyEvents, type PositionedDocument } from '../../projections/apply.js';
import type { ProjectionDefinition } from '../../projections/definition.js';
import { itemHistoryProjection, type ItemHistoryDocument } from '../../projections/itemHistory.js';
import { bundleHistoryProjection, type BundleHistoryDocument } from '../../projections/bundleHistory.js';
import { uploadHistoryProjection, type UploadHistoryDocument } from '../../projections/uploadHistory.js';
import { uploadStatsProjection, UPLOAD_STATS_ID, type UploadStatsDocument } from '../../projections/uploadStats.js';
import { dataItemAccepted, itemId } from '../support/events.js';

/** Applies events at positions 1, 2, 3... exactly as the runner does. */
function project<D>(p: ProjectionDefinition<D>, events: DomainEvent[], start = new Map<string, PositionedDocument<D>>()) {
  const docs = new Map(start);
  applyEvents(
    p,
    events.map((event, i) => ({ event, recorded: { position: BigInt(i + 1) } as RecordedEvent })),
    docs,
  );
  return docs;
}

const T = 1_700_000_000_000;
const MINUTE = 60_000;
const minuteOf = (ms: number) => Math.floor(ms / MINUTE) * MINUTE;

describe('upload-stats projection', () => {
  it('counts items and bytes per minute of acceptance, and the totals', () => {
    const docs = project(uploadStatsProjection, [
      dataItemAccepted(itemId(1), { timestamp: T, rawContentLength: 100 }),
      dataItemAccepted(itemId(2), { timestamp: T + 1, rawContentLength: 200 }),
      dataItemAccepted(itemId(3), { timestamp: T + 2 * MINUTE, rawContentLength: 50 }),
      // a late event of an earlier minute goes in its own minute, in order
      dataItemAccepted(itemId(4), { timestamp: T + MINUTE, rawContentLength: 7 }),
      { type: 'DataItemFailed', data: { id: itemId(1), attempts: 10, reason: 'dropped 10 times', timestamp: T + 3 * MINUTE } },
      { type: 'BundlePermanent', data: { planId: 'p1', itemIds: [itemId(2)], txId: 'tx1', blockHeight: 5, confirmations: 18, timestamp: T } },
      { type: 'BundleDropped', data: { planId: 'p2', itemIds: [itemId(3)], reason: 'not mined', countsAsAttempt: true, timestamp: T } },
      { type: 'BundleDropped', data: { planId: 'p3', itemIds: [itemId(4)], reason: 'not mined', countsAsAttempt: true, timestamp: T } },
    ]);
    expect(docs.get(UPLOAD_STATS_ID)?.doc).to.deep.equal({
      minutes: [
        [minuteOf(T), 2, 300],
        [minuteOf(T + MINUTE), 1, 7],
        [minuteOf(T + 2 * MINUTE), 1, 50],
      ],
      items: 4,
      bytes: 357,
      failedItems: 1,
      recentFailures: [{ id: itemId(1), at: T + 3 * MINUTE, reason: 'dropped 10 times' }],
      bundlesPermanent: 1,
      bundlesDropped: 2,
    } satisfies UploadStatsDocument);
  });

  it('keeps only the 60 minutes up to the newest acceptance, so its one document stays small', () => {
    const events = Array.from({ length: 90 }, (_, i) => dataItemAccepted(itemId(i + 1), { timestamp: T + i * MINUTE, rawContentLength: 1 }));
    const doc = project(uploadStatsProjection, events).get(UPLOAD_STATS_ID)?.doc;
    expect(doc?.minutes.map(([m]) => m)).to.deep.equal(Array.from({ length: 60 }, (_, i) => minuteOf(T + (30 + i) * MINUTE)));
    expect(doc?.items).to.equal(90);
  });
});

describe('upload-stats: the last failures', () => {
  const failed = (n: number, at: number): DomainEvent => ({
    type: 'DataItemFailed',
    data: { id: itemId(n), attempts: 3, reason: '3 bundles dropped', timestamp: at },
  });
  const requeued = (n: number, at: number): DomainEvent => ({
    type: 'DataItemRequeued',
    data: {
      id: itemId(n),
      by: 'ops',
      reason: 'gateway fixed',
      previousFailure: '3 bundles dropped',
      previousAttempts: 3,
      rawContentLength: 1100,
      acceptedAt: T,
      timestamp: at,
    },
  });
  const stats = (events: DomainEvent[]) => project(uploadStatsProjection, events).get(UPLOAD_STATS_ID)?.doc;

  it('lists the last 10 failures newest first, damaged items with what was found, and counts the items failed now', () => {
    const doc = stats([
      ...Array.from({ length: 11 }, (_, i) => failed(i + 1, T + i)),
      { type: 'DataItemDamaged', data: { id: itemId(20), blobKey: `items/${itemId(20)}`, found: 'missing', timestamp: T + 50 } },
    ]);
    expect(doc?.failedItems).to.equal(11);
    expect(doc?.recentFailures.map((f) => [f.id, f.at, f.reason])).to.deep.equal([
      [itemId(20), T + 50, 'damaged: stored bytes lost; upload it again'],
      ...Array.from({ length: 9 }, (_, i) => [itemId(11 - i), T + 10 - i, '3 bundles dropped']),
    ]);
  });

  it('drops an item requeued or repaired since from the list and the count; one failing again comes back first', () => {
    const doc = stats([
      failed(1, T),
      failed(2, T + 1),
      { type: 'DataItemDamaged', data: { id: itemId(3), blobKey: `items/${itemId(3)}`, found: 'short', size: 5, timestamp: T + 2 } },
      requeued(2, T + 3),
      { type: 'DataItemRepaired', data: { id: itemId(3), sha256: '0'.repeat(64), timestamp: T + 4 } },
    ]);
    expect(doc?.recentFailures.map((f) => f.id)).to.deep.equal([itemId(1)]);
    expect([doc?.failedItems, doc?.damagedItems]).to.deep.equal([1, 0]);
    const again = stats([failed(1, T), failed(2, T + 1), requeued(2, T + 3), failed(2, T + 9)]);
    expect(again?.recentFailures.map((f) => [f.id, f.at])).to.deep.equal([
      [itemId(2), T + 9],
      [itemId(1), T],
    ]);
    expect(again?.failedItems).to.equal(2);
  });
});

describe('item-history projection', () => {
  const planned = (planId: string, count: number): DomainEvent => ({
    type: 'BundlePlanned',
    data: {
      planId,
      timestamp: T + 10,
      items: Array.from({ length: count }, (_, i) => ({ id: itemId(i + 1), size: 1100, offset: 32 + 64 * count + 1100 * i })),
      headerSize: 32 + 64 * count,
      totalSize: 32 + 64 * count + 1100 * count,
    },
  });

  it('gives every item of a 10000-item bundle one entry of its own, with its own offset', () => {
    const docs = project(itemHistoryProjection, [planned('plan-a', 10_000)]);
    expect(docs.size).to.equal(10_000);
    expect(docs.get(itemId(10_000))?.doc).to.deep.equal({
      entries: [
        {
          position: '1',
          at: T + 10,
          type: 'BundlePlanned',
          summary: `planned into bundle plan-a at offset ${32 + 640_000 + 1100 * 9_999} (10000 items, ${32 + 640_000 + 11_000_000} bytes)`,
        },
      ],
      planIds: ['plan-a'],
    } satisfies ItemHistoryDocument);
  });

  it('makes no document for a reservation, settled or released, of an item it never saw accepted', () => {
    const id = itemId(7);
    const docs = project(itemHistoryProjection, [
      { type: 'BalanceReserved', data: { address: 'payer', reservationId: 'r7', winc: '5', dataItemId: id, timestamp: T } },
      { type: 'ReservationReleased', data: { address: 'payer', reservationId: 'r7', winc: '5', dataItemId: id, reason: 'upload failed', timestamp: T + 1 } },
      { type: 'ReservationSettled', data: { address: 'payer', reservationId: 'r8', winc: '5', dataItemId: itemId(8), timestamp: T + 2 } },
    ]);
    expect(docs.get(id)?.doc).to.equal(undefined);
    expect(docs.get(itemId(8))?.doc).to.equal(undefined);
  });

  it('follows an item through acceptance, settlement, a dropped bundle and a permanent one, leaving the reservation to the account', () => {
    const id = itemId(1);
    const docs = project(itemHistoryProjection, [
      { type: 'BalanceReserved', data: { address: 'payer', reservationId: 'r1', winc: '11', dataItemId: id, timestamp: T } },
      dataItemAccepted(id, { timestamp: T + 1, winc: '11', payer: 'payer', reservationId: 'r1', uploadId: 'upload-1' }),
      { type: 'ReservationSettled', data: { address: 'payer', reservationId: 'r1', winc: '11', dataItemId: id, timestamp: T + 2 } },
      planned('plan-a', 2),
      {
        type: 'BundleDropped',
        data: { planId: 'plan-a', itemIds: [id, itemId(2)], reason: 'not seen 50 blocks after its anchor', countsAsAttempt: true, timestamp: T + 20 },
      },
      planned('plan-b', 1),
      {
        type: 'BundlePrepared',
        data: {
          planId: 'plan-b',
          itemIds: [id],
          txId: 'tx-b',
          reward: '9',
          anchor: 'a',
          dataRoot: 'r',
          dataSize: 1196,
          anchorHeight: 3,
          tx: {},
          timestamp: T + 30,
        },
      },
      { type: 'BundlePermanent', data: { planId: 'plan-b', itemIds: [id], txId: 'tx-b', blockHeight: 4, confirmations: 18, timestamp: T + 40 } },
    ]);
    const doc = docs.get(id)?.doc;
    expect(doc?.planIds).to.deep.equal(['plan-a', 'plan-b']);
    expect(doc?.uploadId).to.equal('upload-1');
    expect(doc?.entries.map((e) => [e.position, e.type, e.summary])).to.deep.equal([
      ['2', 'DataItemAccepted', 'accepted: 1100 bytes of text/plain, 11 winc charged to payer, through multi-part upload upload-1'],
      ['3', 'ReservationSettled', '11 winc settled: charged to payer'],
      ['4', 'BundlePlanned', 'planned into bundle plan-a at offset 160 (2 items, 2360 bytes)'],
      ['5', 'BundleDropped', 'bundle plan-a dropped: not seen 50 blocks after its anchor; back to the queue'],
      ['6', 'BundlePlanned', 'planned into bundle plan-b at offset 96 (1 item, 1196 bytes)'],
      ['7', 'BundlePrepared', 'bundle plan-b signed as transaction tx-b'],
      ['8', 'BundlePermanent', 'permanent: transaction tx-b in block 4, 18 confirmations'],
    ]);
  });

  it('tells an item found damaged, its bundle dropped without it, then repaired; and the other item why its bundle was dropped', () => {
    const [bad, other] = [itemId(1), itemId(2)];
    const docs = project(itemHistoryProjection, [
      dataItemAccepted(bad, { timestamp: T }),
      dataItemAccepted(other, { timestamp: T }),
      planned('plan-a', 2),
      {
        type: 'DataItemDamaged',
        data: { id: bad, blobKey: `items/${bad}`, found: 'short', size: 900, sha256: 'c'.repeat(64), planId: 'plan-a', timestamp: T + 20 },
      },
      {
        type: 'BundleDropped',
        data: {
          planId: 'plan-a',
          itemIds: [bad, other],
          reason: 'stored bytes of 1 item no longer match their acceptance',
          damagedItemIds: [bad],
          countsAsAttempt: true,
          timestamp: T + 21,
        },
      },
      { type: 'DataItemRepaired', data: { id: bad, sha256: '0'.repeat(64), timestamp: T + 30 } },
    ]);
    expect(
      docs
        .get(bad)
        ?.doc?.entries.slice(2)
        .map((e) => [e.type, e.summary]),
    ).to.deep.equal([
      [
        'DataItemDamaged',
        `stored bytes cut short: blob items/${bad} holds 900 bytes, fewer than accepted: left the bundle queue; it is never posted until the same item is uploaded again`,
      ],
      ['BundleDropped', 'bundle plan-a dropped without this item, whose stored bytes are damaged'],
      ['DataItemRepaired', 'repaired: its accepted bytes stored again by a new upload; back in the bundle queue'],
    ]);
    expect(docs.get(other)?.doc?.entries.at(-1)?.summary).to.equal(
      "bundle plan-a dropped for another item's damaged bytes; back to the queue (not counted as an attempt)",
    );
  });
});

describe('item-history: a failed item requeued', () => {
  it('tells who requeued it and why, and that it is back in the queue', () => {
    const id = itemId(1);
    const docs = project(itemHistoryProjection, [
      dataItemAccepted(id, { timestamp: T }),
      { type: 'DataItemFailed', data: { id, attempts: 1, reason: '1 bundles dropped', timestamp: T + 1 } },
      {
        type: 'DataItemRequeued',
        data: {
          id,
          by: 'alice',
          reason: 'gateway healed',
          previousFailure: '1 bundles dropped',
          previousAttempts: 1,
          rawContentLength: 1100,
          acceptedAt: T,
          timestamp: T + 2,
        },
      },
    ]);
    expect(
      docs
        .get(id)
        ?.doc?.entries.slice(1)
        .map((e) => [e.at, e.type, e.summary]),
    ).to.deep.equal([
      [T + 1, 'DataItemFailed', 'failed after 1 bundle attempts: 1 bundles dropped'],
      [T + 2, 'DataItemRequeued', 'requeued by alice: gateway healed; back in the bundle queue (it had failed: 1 bundles dropped)'],
    ]);
  });
});

describe('bundle-history projection', () => {
  it('keeps a plan with its steps and state after it is permanent', () => {
    const docs = project(bundleHistoryProjection, [
      { type: 'BundlePlanned', data: { planId: 'p', timestamp: T, items: [{ id: itemId(1), size: 1100, offset: 96 }], headerSize: 96, totalSize: 1196 } },
      {
        type: 'BundlePrepared',
        data: {
          planId: 'p',
          itemIds: [itemId(1)],
          txId: 'tx',
          reward: '9',
          anchor: 'a',
          dataRoot: 'r',
          dataSize: 1196,
          anchorHeight: 3,
          tx: {},
          timestamp: T + 1,
        },
      },
      { type: 'BundlePosted', data: { planId: 'p', txId: 'tx', timestamp: T + 2 } },
      { type: 'BundleSeeded', data: { planId: 'p', txId: 'tx', timestamp: T + 3 } },
      { type: 'BundleConfirmed', data: { planId: 'p', txId: 'tx', blockHeight: 4, confirmations: 2, timestamp: T + 4 } },
      { type: 'BundlePermanent', data: { planId: 'p', itemIds: [itemId(1)], txId: 'tx', blockHeight: 4, confirmations: 18, timestamp: T + 5 } },
    ]);
    const doc = docs.get('p')?.doc;
    expect({ ...doc, entries: doc?.entries.map((e) => e.summary) }).to.deep.equal({
      status: 'permanent',
      plannedAt: T,
      itemCount: 1,
      totalSize: 1196,
      txId: 'tx',
      blockHeight: 4,
      confirmations: 18,
      entries: [
        'bundle p planned: 1 item, 1196 bytes',
        'bundle p signed as transaction tx (reward 9 winston)',
        'bundle transaction tx posted to the gateway',
        'bundle transaction tx: every chunk seeded',
        'bundle transaction tx mined in block 4, 2 confirmations',
        'bundle transaction tx permanent in block 4, 18 confirmations',
      ],
    } satisfies Omit<BundleHistoryDocument, 'entries'> & { entries: string[] });
  });
});

describe('upload-history projection', () => {
  const chunk = (offset: number, length: number, timestamp: number): DomainEvent => ({
    type: 'ChunkReceived',
    data: { uploadId: 'u', offset, length, sha256: '0'.repeat(64), blobKey: 'uploads/u/data', timestamp },
  });

  it('tells the chunks between finalize requests as one entry each, at the first chunk and the time of the last', () => {
    const docs = project(uploadHistoryProjection, [
      { type: 'UploadCreated', data: { uploadId: 'u', token: 'arweave', chunkSize: 5000, timestamp: T } },
      chunk(0, 5000, T + 1),
      chunk(5000, 5000, T + 2),
      chunk(10000, 100, T + 3),
      { type: 'UploadFinalizeRequested', data: { uploadId: 'u', mode: 'async', paidBy: ['payer'], timestamp: T + 4 } },
      // underfunded, then more chunks would be refused; a second request after a credit is its own entry
      { type: 'UploadFinalizeRequested', data: { uploadId: 'u', mode: 'sync', paidBy: [], timestamp: T + 5 } },
    ]);
    const doc = docs.get('u')?.doc;
    expect(doc?.entries).to.deep.equal([
      { position: '1', at: T, type: 'UploadCreated', summary: 'multi-part upload u created (token arweave, chunk size 5000)' },
      { position: '2', at: T + 3, type: 'ChunkReceived', summary: '3 chunks received: 10100 bytes' },
      { position: '5', at: T + 4, type: 'UploadFinalizeRequested', summary: 'background finalize requested, paid by payer' },
      { position: '6', at: T + 5, type: 'UploadFinalizeRequested', summary: 'finalize requested' },
    ] satisfies UploadHistoryDocument['entries']);
  });
});
