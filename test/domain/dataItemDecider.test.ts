import { expect } from 'chai';
import { decide, evolve, initialState } from '../../src/domain/dataItem/decider.js';
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
});
