import { expect } from 'chai';
import type { RecordedEvent } from '../../src/ports/eventStore.js';
import { DomainEvent, fromRecorded } from '../../src/domain/events.js';
import {
  accountBalanceProjection,
  allProjections,
  bundleQueueProjection,
  txStatusProjection,
  receiptsProjection,
  waitingForBundle,
  type ProjectionDefinition,
  type QueuedItem,
} from '../../projections/index.js';
import { uploadStatsProjection, UPLOAD_STATS_ID } from '../../projections/uploadStats.js';
import { applyEvents, type PositionedDocument } from '../../projections/apply.js';
import { dataItemAccepted, itemId } from '../support/events.js';
import { recordedStory } from './story.js';

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

describe('tx status projection', () => {
  it('shows an accepted item as CONFIRMED/new with its sizes, content type and price', () => {
    const id = itemId(1);
    const docs = project(txStatusProjection, [dataItemAccepted(id, { winc: '42' })]);
    expect(docs.get(id)?.doc).to.deep.equal({
      status: 'CONFIRMED',
      info: 'new',
      winc: '42',
      rawContentLength: 1100,
      payloadContentType: 'text/plain',
      payloadDataStart: 1044,
      payloadContentLength: 56,
      timestamp: 1_700_000_000_000,
    });
  });
});

/** items 1 and 2 planned together; 2's stored bytes found damaged; the bundle dropped for it */
const [good, bad] = [itemId(1), itemId(2)];
const planned: DomainEvent = {
  type: 'BundlePlanned',
  data: {
    planId: 'p1',
    items: [
      { id: good, size: 1100, offset: 160 },
      { id: bad, size: 1100, offset: 1260 },
    ],
    headerSize: 160,
    totalSize: 2360,
    timestamp: 2,
  },
};
const damaged: DomainEvent = { type: 'DataItemDamaged', data: { id: bad, blobKey: `items/${bad}`, found: 'missing', planId: 'p1', timestamp: 3 } };
const droppedForDamage: DomainEvent = {
  type: 'BundleDropped',
  data: {
    planId: 'p1',
    itemIds: [good, bad],
    reason: 'stored bytes of 1 item no longer match their acceptance',
    damagedItemIds: [bad],
    countsAsAttempt: true,
    timestamp: 4,
  },
};
const repaired: DomainEvent = { type: 'DataItemRepaired', data: { id: bad, sha256: '0'.repeat(64), timestamp: 5 } };
const damageStory = [dataItemAccepted(good), dataItemAccepted(bad), planned, damaged, droppedForDamage];
const statusOf = (events: DomainEvent[], id: string) => {
  const doc = project(txStatusProjection, events).get(id)?.doc;
  return doc && { status: doc.status, info: doc.info, planId: doc.planId, damaged: doc.damaged };
};

describe('read models of an item whose stored bytes were found damaged', () => {
  it('tx-status: FAILED/damaged from the finding on, also once its bundle is dropped; the other item is back to new', () => {
    expect(statusOf(damageStory.slice(0, 4), bad)).to.deep.equal({ status: 'FAILED', info: 'damaged', planId: 'p1', damaged: true });
    expect(statusOf(damageStory, bad)).to.deep.equal({ status: 'FAILED', info: 'damaged', planId: undefined, damaged: true });
    expect(statusOf(damageStory, good)).to.deep.equal({ status: 'CONFIRMED', info: 'new', planId: undefined, damaged: undefined });
  });

  it('tx-status: repaired, it waits for a bundle again, or stays pending in the plan still holding it', () => {
    expect(statusOf([...damageStory, repaired], bad)).to.deep.equal({ status: 'CONFIRMED', info: 'new', planId: undefined, damaged: undefined });
    // a repair recorded between the finding and the drop (the bundler stopped in between)
    expect(statusOf([...damageStory.slice(0, 4), repaired], bad)).to.deep.equal({ status: 'CONFIRMED', info: 'pending', planId: 'p1', damaged: undefined });
  });

  it('bundle-queue: the damaged item stays out of the queue, and the drop counts as no attempt of any item', () => {
    const docs = project(bundleQueueProjection, damageStory);
    expect(docs.get(good)?.doc).to.deep.equal({ size: 1100, acceptedAt: 1_700_000_000_000, attempts: 0 });
    expect(docs.get(bad)?.doc).to.deep.equal({ size: 1100, acceptedAt: 1_700_000_000_000, attempts: 0, damaged: true });
    expect(project(bundleQueueProjection, [...damageStory, repaired]).get(bad)?.doc).to.deep.equal({ size: 1100, acceptedAt: 1_700_000_000_000, attempts: 0 });
    const otherDrop: DomainEvent = {
      type: 'BundleDropped',
      data: { planId: 'p1', itemIds: [good, bad], reason: 'not seen 51 blocks after its anchor', countsAsAttempt: true, timestamp: 4 },
    };
    expect(project(bundleQueueProjection, [dataItemAccepted(good), planned, otherDrop]).get(good)?.doc).to.include({ attempts: 1 });
  });

  it('upload-stats: counts the items damaged now', () => {
    const stats = (events: DomainEvent[]) => project(uploadStatsProjection, events).get(UPLOAD_STATS_ID)?.doc?.damagedItems;
    expect(stats([dataItemAccepted(good)])).to.equal(undefined);
    expect(stats(damageStory)).to.equal(1);
    expect(stats([...damageStory, repaired])).to.equal(0);
  });
});

/** an item accepted at T0, planned, dropped: out of attempts (1), FAILED; then requeued, planned and made permanent */
const T0 = 1_700_000_000_000;
const onePlan = (planId: string): DomainEvent => ({
  type: 'BundlePlanned',
  data: { planId, items: [{ id: good, size: 1100, offset: 96 }], headerSize: 96, totalSize: 1196, timestamp: 2 },
});
const failedStory: DomainEvent[] = [
  dataItemAccepted(good),
  onePlan('p1'),
  { type: 'BundleDropped', data: { planId: 'p1', itemIds: [good], reason: 'not seen 51 blocks after its anchor', countsAsAttempt: true, timestamp: 3 } },
  { type: 'DataItemFailed', data: { id: good, attempts: 1, reason: '1 bundles dropped', timestamp: 4 } },
];
const requeued: DomainEvent = {
  type: 'DataItemRequeued',
  data: {
    id: good,
    by: 'ops',
    reason: 'gateway healed',
    previousFailure: '1 bundles dropped',
    previousAttempts: 1,
    rawContentLength: 1100,
    acceptedAt: T0,
    timestamp: 5,
  },
};
const permanentAfterRequeue: DomainEvent[] = [
  onePlan('p2'),
  { type: 'BundlePermanent', data: { planId: 'p2', itemIds: [good], txId: 'tx2', blockHeight: 9, confirmations: 18, timestamp: 7 } },
];

describe('read models of a FAILED item requeued by an operator', () => {
  it('tx-status: CONFIRMED/new again (accepted, waiting for a bundle), then pending and FINALIZED like any item', () => {
    expect(statusOf(failedStory, good)).to.deep.equal({ status: 'FAILED', info: 'failed', planId: undefined, damaged: undefined });
    expect(statusOf([...failedStory, requeued], good)).to.deep.equal({ status: 'CONFIRMED', info: 'new', planId: undefined, damaged: undefined });
    expect(statusOf([...failedStory, requeued, permanentAfterRequeue[0]!], good)).to.deep.equal({
      status: 'CONFIRMED',
      info: 'pending',
      planId: 'p2',
      damaged: undefined,
    });
    expect(project(txStatusProjection, [...failedStory, requeued, ...permanentAfterRequeue]).get(good)?.doc).to.include({
      status: 'FINALIZED',
      info: 'permanent',
      bundleId: 'tx2',
    });
  });

  it('bundle-queue: back in the queue with its size, acceptance time and no attempt used, so the bundler plans it', () => {
    expect(project(bundleQueueProjection, failedStory).get(good)?.doc).to.equal(undefined);
    expect(project(bundleQueueProjection, [...failedStory, requeued]).get(good)?.doc).to.deep.equal({ size: 1100, acceptedAt: T0, attempts: 0 });
    expect(project(bundleQueueProjection, [...failedStory, requeued, ...permanentAfterRequeue]).get(good)?.doc).to.equal(undefined);
  });
});

describe('items waiting for a bundle (the status page)', () => {
  /** the queue's documents in id order, scanned a page at a time as the read stores do */
  const queueOf = (docs: QueuedItem[]) => {
    const rows = docs.map((doc, i) => ({ id: itemId(i + 1), doc, position: 1n })).sort((a, b) => (a.id < b.id ? -1 : 1));
    return {
      scan: async <T>(_collection: string, { afterId, limit }: { afterId?: string; limit: number }) =>
        rows.filter((r) => afterId === undefined || r.id > afterId).slice(0, limit) as unknown as ((typeof rows)[number] & { doc: T })[],
    };
  };

  it('counts the items in no live plan and not damaged, over every page, and finds the oldest one', async () => {
    const docs: QueuedItem[] = Array.from({ length: 2500 }, (_, i) => ({ size: 1, acceptedAt: T0 + 10_000 + i, attempts: 0 }));
    docs[100] = { size: 1, acceptedAt: T0, attempts: 0, planId: 'p1' };
    docs[200] = { size: 1, acceptedAt: T0 + 1, attempts: 0, damaged: true };
    docs[2400] = { size: 1, acceptedAt: T0 + 5, attempts: 2 };
    expect(await waitingForBundle(queueOf(docs))).to.deep.equal({ items: 2498, oldestAcceptedAt: T0 + 5 });
    expect(await waitingForBundle(queueOf([]))).to.deep.equal({ items: 0, oldestAcceptedAt: undefined });
  });
});

describe('receipts projection', () => {
  it('keeps the receipt of each accepted item', () => {
    const event = dataItemAccepted(itemId(2));
    const docs = project(receiptsProjection, [event]);
    expect(docs.get(itemId(2))?.doc).to.deep.equal(event.data.receipt);
  });
});

describe('every projection', () => {
  const story = recordedStory();
  const storyTypes = new Set<string>(story.map(({ event }) => event.type));
  function projectStory<D>(p: ProjectionDefinition<D>, start = new Map<string, PositionedDocument<D>>()) {
    const docs = new Map(start);
    applyEvents(p, story, docs);
    return docs;
  }

  it('replays a story whose every event is valid as recorded', () => {
    for (const { event, recorded } of story)
      expect(fromRecorded(recorded), `${recorded.streamName}@${recorded.revision}`).to.deep.equal(DomainEvent.parse(event));
  });

  for (const p of allProjections) {
    it(`${p.name}: the story holds every event type it handles, and builds documents from it`, () => {
      expect(
        (p.handles as readonly string[]).filter((type) => !storyTypes.has(type)),
        'handled types the story (test/projections/story.ts) lacks',
      ).to.deep.equal([]);
      expect([...projectStory(p).values()].filter(({ doc }) => doc !== undefined)).to.not.deep.equal([]);
    });
    it(`${p.name}: replaying the story changes nothing, and building it again gives the same documents`, () => {
      const once = projectStory(p);
      expect([...projectStory(p, once).entries()]).to.deep.equal([...once.entries()]);
      expect([...projectStory(p).entries()]).to.deep.equal([...once.entries()]);
    });
    it(`${p.name}: applying a failure, a requeue and a permanent bundle twice changes nothing`, () => {
      const events = [...failedStory, requeued, ...permanentAfterRequeue];
      const once = project(p, events);
      expect([...project(p, events, once).entries()]).to.deep.equal([...once.entries()]);
    });
    it(`${p.name}: applying a damage, its drop and a repair twice changes nothing`, () => {
      const events = [...damageStory, repaired];
      const once = project(p, events);
      expect([...project(p, events, once).entries()]).to.deep.equal([...once.entries()]);
    });
  }
});

describe('account-balance projection', () => {
  // reservation ids SQLite or JSON would reorder (integer-like keys come first in an object), an
  // approval with and without expiry, a reservation paid on behalf of an approved owner
  const address = 'payer';
  const events: DomainEvent[] = [
    { type: 'AccountCredited', data: { address, winc: '1000', creditId: 'c1', timestamp: 1 } },
    { type: 'PaymentApproved', data: { address, approvedAddress: 'friend', winc: '300', expiresAt: 99, timestamp: 2 } },
    { type: 'BalanceReserved', data: { address, reservationId: 'r-b', winc: '10', dataItemId: itemId(1), timestamp: 3 } },
    { type: 'BalanceReserved', data: { address, reservationId: '20', winc: '20', dataItemId: itemId(2), onBehalfOf: 'friend', timestamp: 4 } },
    { type: 'BalanceReserved', data: { address, reservationId: '3', winc: '30', dataItemId: itemId(3), timestamp: 5 } },
    { type: 'AccountCredited', data: { address, winc: '5', creditId: 'c2', timestamp: 6 } },
    { type: 'ReservationSettled', data: { address, reservationId: '20', winc: '20', dataItemId: itemId(2), timestamp: 7 } },
    { type: 'PaymentApproved', data: { address, approvedAddress: 'other', winc: '7', timestamp: 8 } },
    { type: 'ReservationReleased', data: { address, reservationId: 'r-b', winc: '10', dataItemId: itemId(1), reason: 'refused', timestamp: 9 } },
    { type: 'PaymentApprovalRevoked', data: { address, approvedAddress: 'other', timestamp: 10 } },
    { type: 'ReservationSettled', data: { address, reservationId: '3', winc: '30', dataItemId: itemId(3), timestamp: 11 } },
  ];

  it('gives the same document folding the events in one batch as folding each on the document read back from the store', () => {
    // as the live runner after each commit: the document as the store gives it back (parsed JSON)
    let readBack = new Map<string, PositionedDocument<unknown>>();
    events.forEach((event, i) => {
      const docs = new Map(readBack);
      applyEvents(accountBalanceProjection, [{ event, recorded: { position: BigInt(i + 1) } as RecordedEvent }], docs);
      readBack = new Map([...docs].map(([id, d]) => [id, { doc: JSON.parse(JSON.stringify(d.doc)) as unknown, position: d.position }]));
      // in one batch, each step's document carried to the next (JSON.stringify: the order of keys too)
      const inOneBatch = project(accountBalanceProjection, events.slice(0, i + 1)).get(address);
      expect(JSON.stringify(inOneBatch?.doc), `after ${event.type} ${i + 1}`).to.equal(JSON.stringify(readBack.get(address)?.doc));
    });
    const inOneBatch = project(accountBalanceProjection, events).get(address);
    expect(inOneBatch?.doc).to.deep.equal({
      creditIds: ['c1', 'c2'],
      credited: '1005',
      spent: '50',
      reservations: {},
      approvals: { friend: { remaining: '280', expiresAt: 99, approvedWinc: '300', createdAt: 2 } },
      taggedItemIds: [],
    });
  });
});
