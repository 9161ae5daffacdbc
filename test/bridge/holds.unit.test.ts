import { expect } from 'chai';
import { ReadHolds } from '../../src/app/bridge/holds.js';
import type { RecordedEvent, StreamName } from '../../src/ports/eventStore.js';
import { itemId } from '../support/events.js';

const [a, b] = [itemId(1), itemId(2)];

/** a hold or a release of `id` as the store hands it out at `position` */
const recorded = (type: 'DataItemQuarantined' | 'DataItemReleased', id: string, position: bigint): RecordedEvent => ({
  id: `00000000-0000-4000-8000-${String(position).padStart(12, '0')}`,
  type,
  data: { id, by: 'ops', reason: 'abuse report', timestamp: 1 },
  metadata: { correlationId: 't', schemaVersion: 1 },
  streamName: `dataitem-${id}` as StreamName,
  revision: 1n,
  position,
  created: 1,
});

describe('optical bridge: the holds of the items waiting, from the events read in order', () => {
  it('marks a waiting item held by its hold, lifts it by its release, and ignores the holds of items not waiting', () => {
    const holds = new ReadHolds(0n);
    holds.queued(a);
    holds.note(recorded('DataItemQuarantined', a, 1n));
    holds.note(recorded('DataItemQuarantined', b, 2n));
    expect([holds.isHeld(a), holds.isHeld(b)]).to.deep.equal([true, false]);
    holds.note(recorded('DataItemReleased', a, 3n));
    expect(holds.isHeld(a)).to.equal(false);
  });

  it('forgets a hold once none of its units waits', () => {
    const holds = new ReadHolds(0n);
    holds.queued(a);
    holds.queued(a);
    holds.note(recorded('DataItemQuarantined', a, 1n));
    holds.done(a);
    expect(holds.isHeld(a)).to.equal(true);
    holds.done(a);
    holds.queued(a);
    expect(holds.isHeld(a)).to.equal(false);
  });

  it('says the reading passed a position at once, or once it gets there; not while it is stalled, nor past the wait', async () => {
    const holds = new ReadHolds(5n);
    expect(await holds.until(5n, 60_000)).to.equal(true);
    const later = holds.until(7n, 60_000);
    holds.passed(6n);
    holds.passed(7n);
    expect(await later).to.equal(true);
    const stalled = holds.until(9n, 60_000);
    holds.stall(true);
    expect(await stalled).to.equal(false);
    expect(await holds.until(9n, 60_000)).to.equal(false);
    holds.stall(false);
    expect(await holds.until(9n, 1)).to.equal(false);
  });
});
