import { expect } from 'chai';
import { decideBundle, type BundleCommand } from '../../src/domain/bundle/decider.js';
import { type BundleEvent } from '../../src/domain/bundle/events.js';
import { fromRecorded } from '../../src/domain/events.js';
import { LeaseLost } from '../../src/domain/bundle/lease.js';
import { streamName } from '../../src/ports/eventStore.js';
import { evolveBundle, type BundleState } from '../../src/domain/bundle/state.js';
import { bundleQueueProjection, type QueuedItem } from '../../projections/index.js';
import { deciderSpec } from '../support/deciderSpec.js';

const P = 'plan-1';
const items = [{ id: 'item-a', size: 10, offset: 160 }];
const planned: BundleEvent = { type: 'BundlePlanned', data: { planId: P, items, headerSize: 160, totalSize: 170, timestamp: 1 } };
const given = (events: BundleEvent[]): BundleState => events.reduce(evolveBundle, undefined as BundleState);
const awaitFunds = (now: number): BundleCommand => ({ type: 'AwaitFunds', data: { planId: P, reward: '500', balance: '0', address: 'wallet', now } });

/** the bundle-queue document of item-a after these events (as the projector folds them) */
function queuedAfter(events: BundleEvent[]): QueuedItem | undefined {
  const accepted = { size: 10, acceptedAt: 0, attempts: 0 } as QueuedItem;
  return events.reduce<QueuedItem | undefined>(
    (doc, event) => bundleQueueProjection.reduce(doc, event as never, {} as never) as QueuedItem | undefined,
    accepted,
  );
}

describe('bundle decider: waiting for funds, and what a drop counts', () => {
  it('records a planned bundle waiting for funds once: the same wait at a later pass decides nothing', () => {
    expect(decideBundle(awaitFunds(5), given([planned]))).to.deep.equal([
      { type: 'BundleAwaitingFunds', data: { planId: P, reward: '500', balance: '0', address: 'wallet', timestamp: 5 } },
    ]);
    const waiting = given([planned, ...decideBundle(awaitFunds(5), given([planned]))]);
    expect(waiting).to.include({ status: 'planned', awaitingFundsSince: 5 });
    expect(decideBundle(awaitFunds(9), waiting)).to.deep.equal([]);
  });

  it('records no wait for a bundle past planning', () => {
    const prepared: BundleEvent = {
      type: 'BundlePrepared',
      data: {
        planId: P,
        itemIds: ['item-a'],
        txId: 't'.repeat(43),
        reward: '1',
        anchor: 'a',
        dataRoot: 'r',
        dataSize: 170,
        anchorHeight: 3,
        tx: {},
        timestamp: 2,
      },
    };
    expect(decideBundle(awaitFunds(5), given([planned, prepared]))).to.deep.equal([]);
  });

  it('records whether a drop counts as an attempt; counting unless told otherwise', () => {
    const drop = (countsAsAttempt?: boolean): BundleCommand => ({
      type: 'Drop',
      data: { planId: P, reason: 'r', ...(countsAsAttempt !== undefined ? { countsAsAttempt } : {}), now: 7 },
    });
    expect(decideBundle(drop(false), given([planned]))).to.deep.equal([
      { type: 'BundleDropped', data: { planId: P, reason: 'r', itemIds: ['item-a'], countsAsAttempt: false, timestamp: 7 } },
    ]);
    expect(decideBundle(drop(), given([planned]))[0]!.data).to.include({ countsAsAttempt: true });
  });

  it('counts an attempt of the items for a drop that counts, and for a drop recorded before the field existed', () => {
    // read back as the store holds it: schema version 1 is the shape before countsAsAttempt was required
    const dropped = (data: Record<string, unknown>, schemaVersion = 2): BundleEvent =>
      fromRecorded({
        id: 'e',
        type: 'BundleDropped',
        data: { planId: P, itemIds: ['item-a'], reason: 'r', timestamp: 7, ...data },
        metadata: { correlationId: 'spec', schemaVersion },
        streamName: streamName(`bundle-${P}`),
        revision: 1n,
        position: 2n,
        created: 7,
      }) as BundleEvent;
    // an event as stored by the earlier version: no countsAsAttempt; it reads as counted, and still counts
    const old = dropped({}, 1);
    expect(old.data).to.include({ countsAsAttempt: true });
    expect(dropped({ countsAsAttempt: false }, 1).data).to.include({ countsAsAttempt: false });
    expect(() => dropped({})).to.throw(/countsAsAttempt/);
    expect(queuedAfter([planned, old])).to.deep.equal({ size: 10, acceptedAt: 0, attempts: 1 });
    expect(queuedAfter([planned, dropped({ countsAsAttempt: true })])).to.deep.equal({ size: 10, acceptedAt: 0, attempts: 1 });
    expect(queuedAfter([planned, dropped({ countsAsAttempt: false })])).to.deep.equal({ size: 10, acceptedAt: 0, attempts: 0 });
  });

  describe('fencing', () => {
    const underToken = (fence: number): BundleCommand => ({ type: 'MarkPosted', data: { planId: P, now: 9, fence } });
    const prepared = (fence?: number): BundleEvent => ({
      type: 'BundlePrepared',
      data: {
        planId: P,
        itemIds: ['item-a'],
        txId: 't'.repeat(43),
        reward: '1',
        anchor: 'a',
        dataRoot: 'r',
        dataSize: 170,
        anchorHeight: 3,
        tx: {},
        timestamp: 2,
        ...(fence !== undefined ? { fence } : {}),
      },
    });

    it("records the command's fencing token on each event it decides, and the newest one in the state", () => {
      expect(decideBundle(underToken(4), given([planned, prepared(4)]))).to.deep.equal([
        { type: 'BundlePosted', data: { planId: P, txId: 't'.repeat(43), timestamp: 9, fence: 4 } },
      ]);
      expect(given([{ ...planned, data: { ...planned.data, fence: 2 } }, prepared(4)])).to.include({ fence: 4 });
    });

    it('refuses a command under a token older than the newest on the stream: its bundler lost the lease', () => {
      expect(() => decideBundle(underToken(3), given([planned, prepared(4)]))).to.throw(
        LeaseLost,
        'bundle plan-1 was advanced under fencing token 4; MarkPosted carries 3',
      );
    });

    it('takes a command under a token on a stream recorded before fencing, or the same token', () => {
      expect(decideBundle(underToken(0), given([planned, prepared()]))).to.have.length(1);
      expect(decideBundle(underToken(4), given([planned, prepared(4)]))).to.have.length(1);
    });
  });
});

describe('bundle decider: the lifecycle, one recorded step at a time (given / when / then)', () => {
  const spec = deciderSpec<BundleCommand, BundleEvent, BundleState>({ initialState: undefined, evolve: evolveBundle, decide: decideBundle });
  const tx = { id: 't'.repeat(43) };
  const prepare: BundleCommand = {
    type: 'MarkPrepared',
    data: { planId: P, txId: tx.id, reward: '5', anchor: 'a', anchorHeight: 1_000, dataRoot: 'r', dataSize: 170, tx, now: 2 },
  };
  const prepared: BundleEvent = {
    type: 'BundlePrepared',
    data: { planId: P, txId: tx.id, reward: '5', anchor: 'a', anchorHeight: 1_000, dataRoot: 'r', dataSize: 170, tx, itemIds: ['item-a'], timestamp: 2 },
  };
  const posted: BundleEvent = { type: 'BundlePosted', data: { planId: P, txId: tx.id, timestamp: 3 } };
  const seeded: BundleEvent = { type: 'BundleSeeded', data: { planId: P, txId: tx.id, timestamp: 4 } };
  const confirmed: BundleEvent = { type: 'BundleConfirmed', data: { planId: P, blockHeight: 1_010, confirmations: 1, txId: tx.id, timestamp: 5 } };
  const permanent: BundleEvent = {
    type: 'BundlePermanent',
    data: { planId: P, blockHeight: 1_010, confirmations: 60, itemIds: ['item-a'], txId: tx.id, timestamp: 6 },
  };
  const step = (type: 'MarkPosted' | 'MarkSeeded', now: number): BundleCommand => ({ type, data: { planId: P, now } });
  const confirm: BundleCommand = { type: 'MarkConfirmed', data: { planId: P, blockHeight: 1_010, confirmations: 1, now: 5 } };
  const makePermanent: BundleCommand = { type: 'MarkPermanent', data: { planId: P, blockHeight: 1_010, confirmations: 60, now: 6 } };
  const drop: BundleCommand = { type: 'Drop', data: { planId: P, reason: 'not seen', now: 7 } };
  const dropped = (txId?: string): BundleEvent => ({
    type: 'BundleDropped',
    data: { planId: P, reason: 'not seen', itemIds: ['item-a'], ...(txId ? { txId } : {}), countsAsAttempt: true, timestamp: 7 },
  });

  it('plans once', () => {
    spec
      .given([])
      .when({ type: 'Plan', data: { planId: P, items, headerSize: 160, totalSize: 170, now: 1 } })
      .then([planned]);
    spec
      .given([planned])
      .when({ type: 'Plan', data: { planId: P, items, headerSize: 160, totalSize: 170, now: 9 } })
      .thenNothing();
  });

  it('goes planned, prepared, posted, seeded, confirmed, permanent, each step recorded once', () => {
    spec.given([planned]).when(prepare).then([prepared]);
    spec.given([planned, prepared]).when(prepare).thenNothing();
    spec.given([planned, prepared]).when(step('MarkPosted', 3)).then([posted]);
    spec.given([planned, prepared, posted]).when(step('MarkSeeded', 4)).then([seeded]);
    spec.given([planned, prepared, posted, seeded]).when(confirm).then([confirmed]);
    spec.given([planned, prepared, posted, seeded, confirmed]).when(makePermanent).then([permanent]);
    spec.given([planned, prepared, posted, seeded, confirmed, permanent]).when(makePermanent).thenNothing();
  });

  it('takes no step out of order: nothing is posted before it is prepared, nor confirmed before it is seeded', () => {
    spec.given([planned]).when(step('MarkPosted', 3)).thenNothing();
    spec.given([planned, prepared]).when(step('MarkSeeded', 4)).thenNothing();
    spec.given([planned, prepared, posted]).when(confirm).thenNothing();
    spec.given([]).when(prepare).thenNothing();
  });

  it('becomes permanent from seeded directly (the confirmation was missed between two passes)', () => {
    spec.given([planned, prepared, posted, seeded]).when(makePermanent).then([permanent]);
  });

  it('drops a live bundle with its transaction, and never a permanent or dropped one', () => {
    spec.given([planned]).when(drop).then([dropped()]);
    spec
      .given([planned, prepared, posted, seeded])
      .when(drop)
      .then([dropped(tx.id)]);
    spec.given([planned, prepared, posted, seeded, permanent]).when(drop).thenNothing();
    spec.given([planned, dropped()]).when(drop).thenNothing();
  });
});
