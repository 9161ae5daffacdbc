import { expect } from 'chai';
import { decide, evolve, initialState, type DataItemCommand } from '../../src/domain/dataItem/decider.js';
import type { DataItemEvent } from '../../src/domain/dataItem/events.js';
import { ItemDamaged, ItemNotFailed, TxNotFound } from '../../src/domain/errors.js';
import { dataItemAccepted, itemId } from '../support/events.js';

const given = (events: DataItemEvent[]) => events.reduce(evolve, initialState);

describe('data item decider', () => {
  it('accepts an item never seen: one DataItemAccepted with the facts of the command', () => {
    const accepted = dataItemAccepted(itemId(1));
    expect(decide({ type: 'AcceptDataItem', data: accepted.data }, given([]))).to.deep.equal({ events: [accepted] });
  });

  it('decides nothing for an item already accepted and yields the original receipt', () => {
    const original = dataItemAccepted(itemId(1), { timestamp: 1 });
    const retry = dataItemAccepted(itemId(1), { timestamp: 2 });
    expect(decide({ type: 'AcceptDataItem', data: retry.data }, given([original]))).to.deep.equal({
      events: [],
      existing: original.data.receipt,
    });
  });

  describe('damage and repair of its stored bytes', () => {
    const id = itemId(1);
    const accepted = dataItemAccepted(id, { sha256: 'a'.repeat(64), rawContentLength: 1100 });
    const found = (data: Partial<Extract<DataItemCommand, { type: 'RecordDamage' }>['data']> = {}): DataItemCommand => ({
      type: 'RecordDamage',
      data: { id, found: 'digest', size: 1100, sha256: 'b'.repeat(64), planId: 'plan-1', now: 5, ...data },
    });
    const damaged: DataItemEvent = {
      type: 'DataItemDamaged',
      data: { id, blobKey: `items/${id}`, found: 'digest', size: 1100, sha256: 'b'.repeat(64), planId: 'plan-1', timestamp: 5 },
    };
    const repair = (data: Partial<Extract<DataItemCommand, { type: 'RecordRepair' }>['data']> = {}): DataItemCommand => ({
      type: 'RecordRepair',
      data: { id, sha256: 'a'.repeat(64), size: 1100, now: 9, ...data },
    });
    const repaired: DataItemEvent = { type: 'DataItemRepaired', data: { id, sha256: 'a'.repeat(64), timestamp: 9 } };

    it('records the damage found under its blob key, with what was found', () => {
      expect(decide(found(), given([accepted]))).to.deep.equal({ events: [damaged] });
      expect(decide(found({ found: 'missing', size: undefined, sha256: undefined }), given([accepted])).events).to.have.length(1);
      expect(decide(found({ found: 'short', size: 1099, sha256: undefined }), given([accepted])).events).to.have.length(1);
      expect(decide(found({ found: 'long', size: 1101, sha256: undefined }), given([accepted])).events).to.have.length(1);
    });

    it('decides nothing when what was found is the accepted bytes after all', () => {
      expect(decide(found({ sha256: 'a'.repeat(64) }), given([accepted]))).to.deep.equal({ events: [] });
      expect(decide(found({ found: 'short', size: 1100, sha256: undefined }), given([accepted]))).to.deep.equal({ events: [] });
      expect(decide(found({ found: 'long', size: 1100, sha256: undefined }), given([accepted]))).to.deep.equal({ events: [] });
    });

    it('records a damage once, and none on an item never accepted or failed for good', () => {
      expect(decide(found(), given([accepted, damaged]))).to.deep.equal({ events: [] });
      expect(decide(found(), given([]))).to.deep.equal({ events: [] });
      const failed: DataItemEvent = { type: 'DataItemFailed', data: { id, attempts: 10, reason: '10 bundles dropped', timestamp: 3 } };
      expect(decide(found(), given([accepted, failed]))).to.deep.equal({ events: [] });
    });

    it('is repaired by bytes of the accepted sha256 and size, and by nothing else', () => {
      expect(decide(repair(), given([accepted, damaged]))).to.deep.equal({ events: [repaired] });
      expect(decide(repair({ uploadId: 'up-1' }), given([accepted, damaged])).events[0]).to.deep.equal({
        ...repaired,
        data: { ...repaired.data, uploadId: 'up-1' },
      });
      expect(decide(repair({ sha256: 'b'.repeat(64) }), given([accepted, damaged]))).to.deep.equal({ events: [] });
      expect(decide(repair({ size: 1099 }), given([accepted, damaged]))).to.deep.equal({ events: [] });
    });

    it('needs no repair when not damaged, and can be damaged again once repaired', () => {
      expect(decide(repair(), given([accepted]))).to.deep.equal({ events: [] });
      expect(decide(repair(), given([accepted, damaged, repaired]))).to.deep.equal({ events: [] });
      expect(decide(found(), given([accepted, damaged, repaired]))).to.deep.equal({ events: [damaged] });
    });

    it('still answers a re-sent item with its original receipt while damaged', () => {
      expect(decide({ type: 'AcceptDataItem', data: dataItemAccepted(id, { timestamp: 7 }).data }, given([accepted, damaged]))).to.deep.equal({
        events: [],
        existing: accepted.data.receipt,
      });
    });
  });

  describe('failure by the bundler', () => {
    const id = itemId(1);
    const fail: DataItemCommand = { type: 'FailItem', data: { id, attempts: 3, reason: '3 bundles dropped', now: 7 } };
    const failed: DataItemEvent = { type: 'DataItemFailed', data: { id, attempts: 3, reason: '3 bundles dropped', timestamp: 7 } };

    it('records an accepted item FAILED with its attempts and why', () => {
      expect(decide(fail, given([dataItemAccepted(id)]))).to.deep.equal({ events: [failed] });
    });

    it('decides nothing for an item already FAILED or never accepted; one requeued can fail again', () => {
      expect(decide(fail, given([dataItemAccepted(id), failed]))).to.deep.equal({ events: [] });
      expect(decide(fail, given([]))).to.deep.equal({ events: [] });
      const requeued: DataItemEvent = {
        type: 'DataItemRequeued',
        data: {
          id,
          by: 'ops',
          reason: 'funded',
          previousFailure: '3 bundles dropped',
          previousAttempts: 3,
          rawContentLength: 1100,
          acceptedAt: 1,
          timestamp: 8,
        },
      };
      expect(decide(fail, given([dataItemAccepted(id), failed, requeued]))).to.deep.equal({ events: [failed] });
    });
  });

  describe('requeue by an operator', () => {
    const id = itemId(1);
    const accepted = dataItemAccepted(id, { rawContentLength: 1100, timestamp: 1000 });
    const failed: DataItemEvent = { type: 'DataItemFailed', data: { id, attempts: 10, reason: '10 bundles dropped', timestamp: 3000 } };
    const requeue: DataItemCommand = { type: 'RequeueItem', data: { id, by: 'alice', reason: 'gateway healed', now: 5000 } };
    const requeued: DataItemEvent = {
      type: 'DataItemRequeued',
      data: {
        id,
        by: 'alice',
        reason: 'gateway healed',
        previousFailure: '10 bundles dropped',
        previousAttempts: 10,
        rawContentLength: 1100,
        acceptedAt: 1000,
        timestamp: 5000,
      },
    };

    it('puts a FAILED item back: DataItemRequeued with who, why, the failure it leaves and what the queue needs', () => {
      expect(decide(requeue, given([accepted, failed]))).to.deep.equal({ events: [requeued] });
    });

    it('decides nothing for an item requeued and not failed since; one that failed again is requeued again', () => {
      expect(decide(requeue, given([accepted, failed, requeued]))).to.deep.equal({ events: [] });
      const again = { ...failed, data: { ...failed.data, attempts: 3, reason: '3 bundles dropped', timestamp: 9000 } };
      expect(decide(requeue, given([accepted, failed, requeued, again])).events).to.deep.equal([
        { ...requeued, data: { ...requeued.data, previousFailure: '3 bundles dropped', previousAttempts: 3 } },
      ]);
    });

    it('refuses an item that is not FAILED (409 Data item not failed)', () => {
      expect(() => decide(requeue, given([accepted]))).to.throw(ItemNotFailed, `${id} is not FAILED`);
    });

    it('refuses a damaged item: its bytes need a new upload (409 Data item damaged)', () => {
      const damaged: DataItemEvent = { type: 'DataItemDamaged', data: { id, blobKey: `items/${id}`, found: 'missing', timestamp: 2000 } };
      expect(() => decide(requeue, given([accepted, damaged]))).to.throw(ItemDamaged, 'upload the same item again');
    });

    it('refuses an item never accepted (404)', () => {
      expect(() => decide(requeue, given([]))).to.throw(TxNotFound);
    });
  });
});
