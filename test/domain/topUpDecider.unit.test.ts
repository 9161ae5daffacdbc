import { decideTopUp, evolveTopUp, initialTopUpState } from '../../src/domain/topUp/decider.js';
import type { TopUpClaimed } from '../../src/domain/topUp/events.js';
import { InvalidTransaction } from '../../src/domain/errors.js';
import { deciderSpec } from '../support/deciderSpec.js';

const spec = deciderSpec({ initialState: initialTopUpState, evolve: evolveTopUp, decide: decideTopUp });

const claim: TopUpClaimed['data'] = {
  token: 'arweave',
  txId: 't'.repeat(43),
  sender: 's'.repeat(43),
  address: 's'.repeat(43),
  target: 'w'.repeat(43),
  quantity: '5000',
  winc: '5000',
  confirmed: false,
  timestamp: 1,
};
const claimed: TopUpClaimed = { type: 'TopUpClaimed', data: claim };

describe('top-up decider', () => {
  it('records the first claim of a transaction', () => {
    spec.given([]).when({ type: 'Claim', data: claim }).then([claimed]);
  });

  it('refuses a second claim of the same transaction, even one that would credit someone else, with Invalid transaction', () => {
    spec
      .given([claimed])
      .when({ type: 'Claim', data: { ...claim, confirmed: true, timestamp: 2 } })
      .thenThrows(InvalidTransaction, /already claimed/);
    spec
      .given([claimed])
      .when({ type: 'Claim', data: { ...claim, address: 'o'.repeat(43) } })
      .thenThrows(InvalidTransaction, /already claimed/);
  });

  it('refuses a transfer worth no winc (dust below the rate, or nothing sent): it would record a claim that credits nothing', () => {
    spec
      .given([])
      .when({ type: 'Claim', data: { ...claim, quantity: '1', winc: '0' } })
      .thenThrows(InvalidTransaction, /worth no winc/);
  });

  it('expires a pending claim (the chain no longer knows its transaction), after which the transaction may be claimed again', () => {
    const expired = { type: 'TopUpExpired' as const, data: { token: 'arweave', txId: claim.txId, address: claim.address, claimedAt: 1, timestamp: 9 } };
    spec
      .given([claimed])
      .when({ type: 'Expire', data: { token: 'arweave', txId: claim.txId, now: 9 } })
      .then([expired]);
    spec
      .given([claimed, expired])
      .when({ type: 'Claim', data: { ...claim, timestamp: 10 } })
      .then([{ type: 'TopUpClaimed', data: { ...claim, timestamp: 10 } }]);
  });

  it('expires nothing that is not a pending claim: none, one confirmed at the claim, one expired already', () => {
    const expire = { type: 'Expire' as const, data: { token: 'arweave', txId: claim.txId, now: 9 } };
    spec.given([]).when(expire).thenNothing();
    spec
      .given([{ type: 'TopUpClaimed', data: { ...claim, confirmed: true } }])
      .when(expire)
      .thenNothing();
    spec
      .given([claimed, { type: 'TopUpExpired', data: { token: 'arweave', txId: claim.txId, address: claim.address, claimedAt: 1, timestamp: 9 } }])
      .when(expire)
      .thenNothing();
  });
});
