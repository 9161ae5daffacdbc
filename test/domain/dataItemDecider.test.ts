import { expect } from 'chai';
import { decide, evolve, initialState, type DataItemCommand } from '../../src/domain/dataItem/decider.js';
import type { DataItemEvent } from '../../src/domain/dataItem/events.js';
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
      expect(decide(repair({ uploadId: 'up-1' }), given([accepted, damaged])).events[0]).to.deep.equal({ ...repaired, data: { ...repaired.data, uploadId: 'up-1' } });
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
});
