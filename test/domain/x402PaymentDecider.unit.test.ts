import { expect } from 'chai';
import { decideX402Payment, evolveX402Payment, initialX402PaymentState, x402PaymentId } from '../../src/domain/x402/decider.js';
import type { X402PaymentEvent, X402SettlementStarted } from '../../src/domain/x402/events.js';
import { deciderSpec } from '../support/deciderSpec.js';

const spec = deciderSpec({ initialState: initialX402PaymentState, evolve: evolveX402Payment, decide: decideX402Payment });

const payer = '0xFFcf8FDEE72ac11b5c542428B35EEF5769C409f0';
const nonce = `0x${'Ab'.repeat(32)}`;
const paymentId = x402PaymentId('base', payer, nonce);
const start: X402SettlementStarted['data'] = {
  paymentId,
  network: 'base',
  payer,
  nonce: nonce.toLowerCase(),
  asset: `0x${'1'.repeat(40)}`,
  payTo: `0x${'2'.repeat(40)}`,
  usdc: '4',
  winc: '12000',
  validBefore: 1_700_000_300,
  dataItemId: 'i'.repeat(43),
  timestamp: 1,
};
const started: X402PaymentEvent = { type: 'X402SettlementStarted', data: start };
const failed: X402PaymentEvent = { type: 'X402SettlementFailed', data: { paymentId, payer, reason: 'insufficient_funds', timestamp: 2 } };

describe('x402 payment decider', () => {
  it('keys a payment by network, payer and nonce in lower case, whatever spelling was sent', () => {
    spec.given([]).when({ type: 'StartSettlement', data: start }).then([started]);
    expect(paymentId).to.equal(`x402:base:${payer.toLowerCase()}:${nonce.toLowerCase()}`);
    expect(x402PaymentId('base', payer.toLowerCase(), nonce.toUpperCase())).to.equal(`x402:base:${payer.toLowerCase()}:${nonce.toLowerCase()}`);
  });

  it('starts a settlement of an authorization once: a second start, settled or still settling, decides nothing', () => {
    spec
      .given([started])
      .when({ type: 'StartSettlement', data: { ...start, dataItemId: 'j'.repeat(43), timestamp: 3 } })
      .thenNothing();
  });

  it('records a started settlement failed once; a failure of none started decides nothing', () => {
    spec
      .given([started])
      .when({ type: 'FailSettlement', data: { paymentId, reason: 'insufficient_funds', now: 2 } })
      .then([failed]);
    spec
      .given([started, failed])
      .when({ type: 'FailSettlement', data: { paymentId, reason: 'again', now: 3 } })
      .thenNothing();
    spec
      .given([])
      .when({ type: 'FailSettlement', data: { paymentId, reason: 'none', now: 3 } })
      .thenNothing();
  });

  it('starts the same authorization again after its settlement failed (the USDC was never taken)', () => {
    spec
      .given([started, failed])
      .when({ type: 'StartSettlement', data: { ...start, timestamp: 4 } })
      .then([{ type: 'X402SettlementStarted', data: { ...start, timestamp: 4 } }]);
  });
});
