import { expect } from 'chai';
import { runAudit } from '../../src/audit/audit.js';
import { checkBundleFences } from '../../src/audit/checks/bundleFences.js';
import { checkBundleLayout } from '../../src/audit/checks/bundleLayout.js';
import { checkDamagedItems } from '../../src/audit/checks/damagedItems.js';
import { checkFailedItems } from '../../src/audit/checks/failedItems.js';
import { checkLiveBundles } from '../../src/audit/checks/liveBundles.js';
import { checkSettlements } from '../../src/audit/checks/settlements.js';
import { fanOut } from '../../src/audit/fanOut.js';
import type { AuditEvent, AuditSink, Counted, Finding } from '../../src/audit/types.js';
import type { DomainEvent } from '../../src/domain/events.js';
import { streamName, type RecordedEvent } from '../../src/ports/eventStore.js';
import { dataItemAccepted, itemId } from '../support/events.js';

/** Checks over events given in a list (no store): what each one reports, and what it counts. */
function recorder() {
  const findings: Finding[] = [];
  const counts: Partial<Record<Counted, number>> = {};
  const sink: AuditSink = {
    finding: (f) => findings.push(f),
    count: (what, n = 1) => {
      counts[what] = (counts[what] ?? 0) + n;
    },
  };
  return { findings, counts, sink };
}

async function* stream(events: DomainEvent[]): AsyncGenerator<AuditEvent> {
  let position = 0n;
  for (const event of events) {
    position += 1n;
    const recorded: RecordedEvent = {
      id: `e${position}`,
      type: event.type,
      data: event.data,
      metadata: { correlationId: 'spec', schemaVersion: 1 },
      streamName: streamName('spec'),
      revision: position - 1n,
      position,
      created: 0,
    };
    yield { event, recorded };
  }
}

const [a, b, c] = [itemId(1), itemId(2), itemId(3)];
const plan = (planId: string, items: { id: string; size: number; offset: number }[], headerSize = 32 + 64 * items.length, totalSize?: number): DomainEvent => ({
  type: 'BundlePlanned',
  data: { planId, items, headerSize, totalSize: totalSize ?? items.reduce((end, i) => Math.max(end, i.offset + i.size), headerSize), timestamp: 0 },
});
const drop = (planId: string, itemIds: string[]): DomainEvent => ({
  type: 'BundleDropped',
  data: { planId, itemIds, reason: 'spec', countsAsAttempt: true, timestamp: 0 },
});
const permanent = (planId: string, itemIds: string[]): DomainEvent => ({
  type: 'BundlePermanent',
  data: { planId, itemIds, txId: 'tx', blockHeight: 1, confirmations: 18, timestamp: 0 },
});

describe('audit checks', () => {
  describe('fanOut', () => {
    async function* count(n: number) {
      for (let i = 0; i < n; i += 1) yield i;
    }
    const collect = (into: number[]) => async (values: AsyncIterable<number>) => {
      for await (const v of values) into.push(v);
    };

    it('gives every consumer every value in order, through a small buffer, whatever their pace', async () => {
      const fast: number[] = [];
      const slow: number[] = [];
      await fanOut(
        count(50),
        [
          collect(fast),
          async (values) => {
            for await (const v of values) {
              await new Promise((r) => setImmediate(r));
              slow.push(v);
            }
          },
        ],
        4,
      );
      expect(fast).to.deep.equal([...Array(50).keys()]);
      expect(slow).to.deep.equal([...Array(50).keys()]);
    });

    it('does not let a consumer that stops early hold the others back', async () => {
      const all: number[] = [];
      const firstThree: number[] = [];
      await fanOut(
        count(20),
        [
          collect(all),
          async (values) => {
            for await (const v of values) {
              firstThree.push(v);
              if (firstThree.length === 3) break;
            }
          },
        ],
        2,
      );
      expect(all).to.have.length(20);
      expect(firstThree).to.deep.equal([0, 1, 2]);
    });

    it('throws the error of a failing consumer once the others have ended', async () => {
      const seen: number[] = [];
      const failure = await fanOut(
        count(1000),
        [
          collect(seen),
          async (values) => {
            for await (const v of values) if (v === 5) throw new Error('check failed');
          },
        ],
        2,
      ).then(
        () => undefined,
        (e: Error) => e.message,
      );
      expect(failure).to.equal('check failed');
      expect(seen.length).to.be.lessThan(1000);
    });
  });

  describe('live bundles', () => {
    it('accepts an item planned again after its bundle was dropped or made permanent, and reports it planned while live', async () => {
      const { findings, sink } = recorder();
      await checkLiveBundles(
        stream([
          plan('p1', [
            { id: a, size: 10, offset: 160 },
            { id: b, size: 10, offset: 170 },
          ]),
          drop('p1', [a, b]),
          plan('p2', [{ id: a, size: 10, offset: 96 }]),
          permanent('p2', [a]),
          plan('p3', [{ id: a, size: 10, offset: 96 }]),
          plan('p4', [{ id: a, size: 10, offset: 96 }]),
        ]),
        sink,
      );
      expect(findings).to.deep.equal([{ kind: 'item-in-two-bundles', id: a, detail: 'planned in p4 while live in p3' }]);
    });
  });

  describe('damaged items', () => {
    const damaged = (id: string, timestamp: number): DomainEvent => ({
      type: 'DataItemDamaged',
      data: { id, blobKey: `items/${id}`, found: 'missing', planId: 'p1', timestamp },
    });
    const repaired = (id: string): DomainEvent => ({ type: 'DataItemRepaired', data: { id, sha256: '0'.repeat(64), timestamp: 9 } });

    it('reports every item still damaged at the end, and a plan that holds an item while it is damaged; a repaired one is fine', async () => {
      const { findings, sink } = recorder();
      await checkDamagedItems(
        stream([
          dataItemAccepted(a),
          dataItemAccepted(b),
          dataItemAccepted(c),
          damaged(a, 0),
          damaged(b, 0),
          plan('p2', [{ id: b, size: 10, offset: 96 }]),
          repaired(b),
          plan('p3', [{ id: b, size: 10, offset: 96 }]),
          damaged(c, 0),
          repaired(c),
        ]),
        sink,
      );
      const found = `stored bytes lost: no blob at items/${a}, found 1970-01-01T00:00:00.000Z`;
      expect(findings).to.deep.equal([
        {
          kind: 'damaged-item-planned',
          id: b,
          detail: `planned in p2 while damaged (stored bytes lost: no blob at items/${b}, found 1970-01-01T00:00:00.000Z)`,
        },
        { kind: 'item-damaged', id: a, detail: `${found}; not repaired: never posted until the same item is uploaded again` },
      ]);
    });
  });

  describe('failed items', () => {
    const failed = (id: string): DomainEvent => ({ type: 'DataItemFailed', data: { id, attempts: 1, reason: '1 bundles dropped', timestamp: 0 } });
    const requeued = (id: string): DomainEvent => ({
      type: 'DataItemRequeued',
      data: {
        id,
        by: 'ops',
        reason: 'gateway healed',
        previousFailure: '1 bundles dropped',
        previousAttempts: 1,
        rawContentLength: 10,
        acceptedAt: 0,
        timestamp: 5,
      },
    });

    it('accepts a FAILED item requeued, then bundled; reports one planned while FAILED and never requeued', async () => {
      const { findings, sink } = recorder();
      await checkFailedItems(
        stream([
          dataItemAccepted(a),
          dataItemAccepted(b),
          plan('p1', [
            { id: a, size: 10, offset: 160 },
            { id: b, size: 10, offset: 170 },
          ]),
          drop('p1', [a, b]),
          failed(a),
          failed(b),
          requeued(a),
          plan('p2', [
            { id: a, size: 10, offset: 160 },
            { id: b, size: 10, offset: 170 },
          ]),
          permanent('p2', [a, b]),
        ]),
        sink,
      );
      expect(findings).to.deep.equal([
        { kind: 'failed-item-planned', id: b, detail: 'planned in p2 while FAILED (failed 1970-01-01T00:00:00.000Z: 1 bundles dropped), never requeued' },
      ]);
    });
  });

  describe('bundle fences', () => {
    const fenced = (event: DomainEvent, fence: number): DomainEvent => ({ ...event, data: { ...event.data, fence } }) as DomainEvent;
    it('reports a bundle event under an older fencing token than one before it on its stream, and nothing else', async () => {
      const { findings, sink } = recorder();
      const posted = (planId: string): DomainEvent => ({ type: 'BundlePosted', data: { planId, txId: 'tx', timestamp: 0 } });
      await checkBundleFences(
        stream([
          plan('p1', [{ id: a, size: 10, offset: 96 }]),
          fenced(posted('p1'), 1),
          fenced(plan('p2', [{ id: b, size: 10, offset: 96 }]), 1),
          fenced(posted('p2'), 2),
          fenced(drop('p2', [b]), 1),
          fenced(permanent('p1', [a]), 1),
        ]),
        sink,
      );
      expect(findings).to.deep.equal([{ kind: 'bundle-fence', id: 'p2', detail: 'BundleDropped (revision 4) under fencing token 1, after token 2' }]);
    });
  });

  describe('bundle layout', () => {
    const noStreams = { eventStore: { async *readStream() {} } };

    it('reports a wrong header size, offset and total, a size other than the accepted one, and an item never accepted', async () => {
      const { findings, counts, sink } = recorder();
      await checkBundleLayout(
        stream([
          dataItemAccepted(a, { rawContentLength: 100 }),
          dataItemAccepted(b, { rawContentLength: 50 }),
          plan(
            'good',
            [
              { id: a, size: 100, offset: 160 },
              { id: b, size: 50, offset: 260 },
            ],
            160,
            310,
          ),
          drop('good', [a, b]),
          plan(
            'bad',
            [
              { id: a, size: 100, offset: 224 },
              { id: b, size: 60, offset: 324 },
              { id: c, size: 5, offset: 384 },
            ],
            160,
            400,
          ),
        ]),
        noStreams,
        sink,
      );
      expect(findings).to.deep.equal([
        { kind: 'bundle-layout', id: 'bad', detail: 'header of 160 bytes, 3 items need 224; total size 400, expected 389' },
        { kind: 'bundle-item-size', id: b, detail: 'planned in bad with 60 bytes, accepted with 50' },
        { kind: 'bundle-item-unknown', id: c, detail: 'planned in bad, but never accepted' },
      ]);
      expect(counts).to.deep.equal({ bundlePlans: 2, plannedItems: 5 });
    });
  });

  describe('settlements', () => {
    const reserve = (reservationId: string, dataItemId: string, winc = '500'): DomainEvent => ({
      type: 'BalanceReserved',
      data: { address: 'payer', reservationId, winc, dataItemId, timestamp: 0 },
    });
    const settle = (reservationId: string, dataItemId: string, winc = '500'): DomainEvent => ({
      type: 'ReservationSettled',
      data: { address: 'payer', reservationId, winc, dataItemId, timestamp: 0 },
    });
    const accepted = (id: string, reservationId?: string) =>
      dataItemAccepted(id, reservationId ? { payer: 'payer', reservationId, winc: '500' } : { winc: '500' });

    it('counts a reservation still open as awaiting settlement, and reports a second settle, a charge without a reservation and a reservation never made', async () => {
      const { findings, counts, sink } = recorder();
      await checkSettlements(
        stream([
          reserve('r1', a),
          accepted(a, 'r1'),
          settle('r1', a),
          settle('r1', a),
          reserve('r2', b),
          accepted(b, 'r2'),
          accepted(c),
          accepted(itemId(4), 'r4'),
        ]),
        sink,
      );
      expect(findings).to.deep.equal([
        { kind: 'settlement-orphan', id: a, detail: 'reservation r1 on payer settled without an open reservation (settled twice?)' },
        { kind: 'settlement-missing', id: c, detail: 'charged 500 winc with payer (none) and reservation (none)' },
        { kind: 'settlement-missing', id: itemId(4), detail: 'no open reservation r4 on payer when the item was accepted' },
      ]);
      expect(counts).to.deep.equal({ paidItems: 3, awaitingSettlement: 1 });
    });
  });

  describe('the audit reader', () => {
    it('reports an event whose data its schema refuses, and reads on', async () => {
      const bad: RecordedEvent = {
        id: 'x',
        type: 'AccountCredited',
        data: { address: 'someone', winc: '-5' },
        metadata: { correlationId: 'spec', schemaVersion: 1 },
        streamName: streamName('account-someone'),
        revision: 3n,
        position: 1n,
        created: 0,
      };
      const eventStore = {
        headPosition: async () => 1n,
        async *readAll() {
          yield bad;
        },
        async *readStream() {},
      };
      const readStore = { getMany: async () => new Map(), scan: async () => [], getCheckpoint: async () => undefined };
      const findings: Finding[] = [];
      const summary = await runAudit(
        {
          eventStore,
          readStore,
          blobStore: {
            read: async () => {
              throw new Error('no blobs');
            },
            list: async function* () {},
          },
          now: Date.now,
        },
        (f) => findings.push(f),
      );
      expect(findings.map(({ kind, id }) => ({ kind, id }))).to.deep.equal([{ kind: 'event-invalid', id: 'account-someone@3' }]);
      expect(findings[0]!.detail).to.match(/^AccountCredited: /);
      expect(summary.checked.events).to.equal(1);
    });

    it("knows the block list's events: a whole one is no finding, one without who blocked is event-invalid", async () => {
      const recorded = (revision: bigint, data: unknown): RecordedEvent => ({
        id: `b${revision}`,
        type: 'AddressBlocked',
        data,
        metadata: { correlationId: 'spec', schemaVersion: 1 },
        streamName: streamName('blocklist'),
        revision,
        position: revision + 1n,
        created: 0,
      });
      const events = [
        recorded(0n, { address: 'someone', by: 'ops', reason: 'spam', timestamp: 1 }),
        recorded(1n, { address: 'other', reason: 'spam', timestamp: 2 }),
      ];
      const eventStore = {
        headPosition: async () => 2n,
        async *readAll() {
          yield* events;
        },
        async *readStream() {},
      };
      const readStore = { getMany: async () => new Map(), scan: async () => [], getCheckpoint: async () => undefined };
      const findings: Finding[] = [];
      await runAudit(
        {
          eventStore,
          readStore,
          blobStore: {
            read: async () => {
              throw new Error('no blobs');
            },
            list: async function* () {},
          },
          now: Date.now,
        },
        (f) => findings.push(f),
      );
      expect(findings.map(({ kind, id }) => ({ kind, id }))).to.deep.equal([{ kind: 'event-invalid', id: 'blocklist@1' }]);
    });
  });
});
