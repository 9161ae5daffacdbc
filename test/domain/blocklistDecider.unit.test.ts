import { expect } from 'chai';
import { decideBlocklist, evolveBlocklist, initialBlocklistState } from '../../src/domain/blocklist/decider.js';
import type { BlocklistEvent } from '../../src/domain/blocklist/events.js';

const A = 'blocked-address';
const given = (events: BlocklistEvent[]) => events.reduce(evolveBlocklist, initialBlocklistState);
const blocked = (timestamp: number, by = 'ops', reason = 'spam'): BlocklistEvent => ({ type: 'AddressBlocked', data: { address: A, by, reason, timestamp } });
const unblocked = (timestamp: number): BlocklistEvent => ({ type: 'AddressUnblocked', data: { address: A, by: 'ops', reason: 'appeal', timestamp } });
const block = { type: 'Block' as const, data: { address: A, by: 'ops-2', reason: 'again', now: 9 } };
const unblock = { type: 'Unblock' as const, data: { address: A, by: 'ops-3', reason: 'cleared', now: 9 } };

describe('block list decider', () => {
  it('blocks an address with who, why and when', () => {
    expect(decideBlocklist(block, given([]))).to.deep.equal([{ type: 'AddressBlocked', data: { address: A, by: 'ops-2', reason: 'again', timestamp: 9 } }]);
    expect([...given([blocked(3)])]).to.deep.equal([[A, { by: 'ops', reason: 'spam', since: 3 }]]);
  });

  it('decides nothing when blocking a blocked address: the first block stays', () => {
    expect(decideBlocklist(block, given([blocked(3)]))).to.deep.equal([]);
  });

  it('unblocks a blocked address, and decides nothing for one that is not blocked', () => {
    expect(decideBlocklist(unblock, given([blocked(3)]))).to.deep.equal([
      { type: 'AddressUnblocked', data: { address: A, by: 'ops-3', reason: 'cleared', timestamp: 9 } },
    ]);
    expect(decideBlocklist(unblock, given([]))).to.deep.equal([]);
    expect(decideBlocklist(unblock, given([blocked(3), unblocked(4)]))).to.deep.equal([]);
  });

  it('blocks again after an unblock, from the new time', () => {
    expect([...given([blocked(3), unblocked(4), blocked(5, 'ops-4', 'relapse')])]).to.deep.equal([[A, { by: 'ops-4', reason: 'relapse', since: 5 }]]);
  });
});
