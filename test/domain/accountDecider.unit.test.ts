import { expect } from 'chai';
import { ChargeNotSettled, decideAccount, InvalidAccountCommand, type AccountCommand } from '../../src/domain/account/decider.js';
import type { AccountEvent } from '../../src/domain/account/events.js';
import { availableOf, evolveAccount, initialAccountState, approvalAvailable } from '../../src/domain/account/state.js';
import { InsufficientBalance } from '../../src/domain/errors.js';
import { deserializeAccount, serializeAccount } from '../../src/domain/account/serialized.js';

const A = 'payer-address';
const O = 'owner-address';
const given = (events: AccountEvent[]) => events.reduce(evolveAccount, initialAccountState);
const credited = (winc: string): AccountEvent => ({ type: 'AccountCredited', data: { address: A, winc, creditId: `c${winc}`, timestamp: 1 } });
const reserved = (reservationId: string, winc: string, onBehalfOf?: string): AccountEvent => ({
  type: 'BalanceReserved',
  data: { address: A, reservationId, winc, dataItemId: `item-${reservationId}`, ...(onBehalfOf ? { onBehalfOf } : {}), timestamp: 2 },
});
const approved = (winc: string, expiresAt?: number): AccountEvent => ({
  type: 'PaymentApproved',
  data: { address: A, approvedAddress: O, winc, ...(expiresAt ? { expiresAt } : {}), timestamp: 1 },
});
const reserve = (reservationId: string, winc: bigint, onBehalfOf?: string, now = 10): AccountCommand => ({
  type: 'Reserve',
  data: { address: A, reservationId, winc, dataItemId: `item-${reservationId}`, ...(onBehalfOf ? { onBehalfOf } : {}), now },
});

describe('account decider', () => {
  it('credits a positive amount and refuses zero', () => {
    expect(decideAccount({ type: 'Credit', data: { address: A, winc: 5n, creditId: 'x', now: 3 } }, given([]))).to.deep.equal([
      { type: 'AccountCredited', data: { address: A, winc: '5', creditId: 'x', timestamp: 3 } },
    ]);
    expect(() => decideAccount({ type: 'Credit', data: { address: A, winc: 0n, creditId: 'x', now: 3 } }, given([]))).to.throw(InvalidAccountCommand);
  });

  it('credits a credit id once: the same id again decides nothing', () => {
    const again = { type: 'Credit' as const, data: { address: A, winc: 100n, creditId: 'c100', now: 5 } };
    expect(decideAccount(again, given([credited('100')]))).to.deep.equal([]);
  });

  it('reserves what is available and refuses a single winc more', () => {
    const state = given([credited('100'), reserved('r1', '60')]);
    expect(decideAccount(reserve('r2', 40n), state)).to.deep.equal([
      { type: 'BalanceReserved', data: { address: A, reservationId: 'r2', winc: '40', dataItemId: 'item-r2', timestamp: 10 } },
    ]);
    expect(() => decideAccount(reserve('r2', 41n), state)).to.throw(InsufficientBalance);
  });

  it('decides nothing for a reservation it already holds', () => {
    expect(decideAccount(reserve('r1', 60n), given([credited('100'), reserved('r1', '60')]))).to.deep.equal([]);
  });

  it('settles a reservation for its amount, once', () => {
    const state = given([credited('100'), reserved('r1', '60')]);
    const events = decideAccount({ type: 'Settle', data: { address: A, reservationId: 'r1', now: 11 } }, state);
    expect(events).to.deep.equal([{ type: 'ReservationSettled', data: { address: A, reservationId: 'r1', winc: '60', dataItemId: 'item-r1', timestamp: 11 } }]);
    const after = events.reduce(evolveAccount, state);
    expect(availableOf(after)).to.equal(40n);
    expect(after.spent).to.equal(60n);
    expect(decideAccount({ type: 'Settle', data: { address: A, reservationId: 'r1', now: 12 } }, after)).to.deep.equal([]);
  });

  it('releases a reservation, giving its amount back', () => {
    const state = given([credited('100'), reserved('r1', '60')]);
    const events = decideAccount({ type: 'Release', data: { address: A, reservationId: 'r1', reason: 'failed', now: 11 } }, state);
    expect(events).to.deep.equal([
      {
        type: 'ReservationReleased',
        data: { address: A, reservationId: 'r1', winc: '60', dataItemId: 'item-r1', reason: 'failed', timestamp: 11 },
      },
    ]);
    expect(availableOf(events.reduce(evolveAccount, state))).to.equal(100n);
  });

  it('lets an approved owner reserve up to the approval, which settlements use up', () => {
    let state = given([credited('1000'), approved('100')]);
    expect(decideAccount(reserve('r1', 100n, O), state)).to.have.length(1);
    expect(() => decideAccount(reserve('r1', 101n, O), state)).to.throw(InsufficientBalance);
    state = given([credited('1000'), approved('100'), reserved('r1', '70', O)]);
    expect(approvalAvailable(state, O, 10)).to.equal(30n);
    state = evolveAccount(state, { type: 'ReservationSettled', data: { address: A, reservationId: 'r1', winc: '70', dataItemId: 'i', timestamp: 3 } });
    expect(state.approvals.get(O)?.remaining).to.equal(30n);
    expect(() => decideAccount(reserve('r2', 31n, O), state)).to.throw(InsufficientBalance);
  });

  it('refuses an owner whose approval expired, was revoked, or never existed', () => {
    expect(() => decideAccount(reserve('r1', 1n, O, 50), given([credited('10'), approved('10', 50)]))).to.throw(InsufficientBalance);
    const revoked: AccountEvent = { type: 'PaymentApprovalRevoked', data: { address: A, approvedAddress: O, timestamp: 2 } };
    expect(() => decideAccount(reserve('r1', 1n, O), given([credited('10'), approved('10'), revoked]))).to.throw(InsufficientBalance);
    expect(() => decideAccount(reserve('r1', 1n, O), given([credited('10')]))).to.throw(InsufficientBalance);
  });

  it('revokes an approval once and refuses approving oneself', () => {
    const revoke: AccountCommand = { type: 'Revoke', data: { address: A, approvedAddress: O, now: 4 } };
    expect(decideAccount(revoke, given([approved('5')]))).to.deep.equal([
      { type: 'PaymentApprovalRevoked', data: { address: A, approvedAddress: O, timestamp: 4 } },
    ]);
    expect(decideAccount(revoke, given([]))).to.deep.equal([]);
    expect(() => decideAccount({ type: 'Approve', data: { address: A, approvedAddress: A, winc: 1n, now: 1 } }, given([]))).to.throw(InvalidAccountCommand);
  });

  it('applies a tagged approval once per item: the same item again decides nothing, even after a revocation', () => {
    const approve: AccountCommand = { type: 'Approve', data: { address: A, approvedAddress: O, winc: 70n, approvalDataItemId: 'item-1', now: 4 } };
    const first = decideAccount(approve, given([]));
    expect(first).to.deep.equal([
      { type: 'PaymentApproved', data: { address: A, approvedAddress: O, winc: '70', approvalDataItemId: 'item-1', timestamp: 4 } },
    ]);
    expect(decideAccount(approve, given(first))).to.deep.equal([]);
    const revoke: AccountCommand = { type: 'Revoke', data: { address: A, approvedAddress: O, revokeDataItemId: 'item-2', now: 5 } };
    const revoked = decideAccount(revoke, given(first));
    expect(revoked).to.deep.equal([{ type: 'PaymentApprovalRevoked', data: { address: A, approvedAddress: O, revokeDataItemId: 'item-2', timestamp: 5 } }]);
    const after = given([...first, ...revoked]);
    expect(decideAccount(approve, after)).to.deep.equal([]);
    expect(
      decideAccount(revoke, given([...first, ...revoked, ...decideAccount({ ...approve, data: { ...approve.data, approvalDataItemId: 'item-3' } }, after)])),
    ).to.deep.equal([]);
    expect(after.approvals.has(O)).to.equal(false);
  });

  it('keeps what a tagged approval granted, when and by which item, for the answer', () => {
    const state = given([
      credited('100'),
      { type: 'PaymentApproved', data: { address: A, approvedAddress: O, winc: '70', approvalDataItemId: 'item-1', timestamp: 4 } },
    ]);
    expect(state.approvals.get(O)).to.deep.equal({ remaining: 70n, approvedWinc: '70', createdAt: 4, approvalDataItemId: 'item-1' });
  });

  it("keeps what each tagged revocation revoked, by the item's id, as it stood then (a re-sent item's answer), through the read model's JSON", () => {
    const granted: AccountEvent = { type: 'PaymentApproved', data: { address: A, approvedAddress: O, winc: '70', approvalDataItemId: 'item-1', timestamp: 4 } };
    const byItem: AccountEvent = { type: 'PaymentApprovalRevoked', data: { address: A, approvedAddress: O, revokeDataItemId: 'item-2', timestamp: 5 } };
    const byOperator: AccountEvent = { type: 'PaymentApprovalRevoked', data: { address: A, approvedAddress: O, timestamp: 6 } };
    const state = given([credited('100'), granted, byItem, granted, byOperator]);
    const revocation = { approvedAddress: O, approval: { remaining: 70n, approvedWinc: '70', createdAt: 4, approvalDataItemId: 'item-1' } };
    expect([...state.revocations]).to.deep.equal([['item-2', revocation]]);
    expect([...deserializeAccount(serializeAccount(state)).revocations]).to.deep.equal([['item-2', revocation]]);
    expect(serializeAccount(given([credited('1')]))).to.not.have.property('revocations');
  });

  describe('refunds of FAILED items', () => {
    const settled: AccountEvent = { type: 'ReservationSettled', data: { address: A, reservationId: 'r1', winc: '60', dataItemId: 'item-r1', timestamp: 3 } };
    const charged = [credited('100'), reserved('r1', '60'), settled];
    const refund = (failure: number): AccountCommand => ({
      type: 'Refund',
      data: { address: A, dataItemId: 'item-r1', reservationId: 'r1', winc: 60n, failure, reason: 'failed', now: 20 },
    });
    const requeue = (failure: number): AccountCommand => ({
      type: 'ChargeForRequeue',
      data: { address: A, dataItemId: 'item-r1', reservationId: 'r1', winc: 60n, failure, by: 'ops', now: 30 },
    });
    const refunded = (failure: number): AccountEvent => ({
      type: 'ChargeRefunded',
      data: { address: A, dataItemId: 'item-r1', reservationId: 'r1', winc: '60', failure, reason: 'failed', timestamp: 20 },
    });
    const recharged = (failure: number): AccountEvent => ({
      type: 'ItemRecharged',
      data: { address: A, dataItemId: 'item-r1', winc: '60', failure, by: 'ops', timestamp: 30 },
    });

    it('refunds a failure once: the charge comes back, the same failure again decides nothing', () => {
      expect(decideAccount(refund(1), given(charged))).to.deep.equal([refunded(1)]);
      expect(availableOf(given([...charged, refunded(1)]))).to.equal(100n);
      expect(decideAccount(refund(1), given([...charged, refunded(1)]))).to.deep.equal([]);
    });

    it('refuses a refund while the charge is not settled (the refunder asks again later)', () => {
      expect(() => decideAccount(refund(1), given([credited('100'), reserved('r1', '60')]))).to.throw(ChargeNotSettled);
    });

    it('charges a refunded item again for its requeue, once, and refuses when the account cannot pay', () => {
      const afterRefund = given([...charged, refunded(1)]);
      expect(decideAccount(requeue(1), afterRefund)).to.deep.equal([recharged(1)]);
      expect(decideAccount(requeue(1), given([...charged, refunded(1), recharged(1)]))).to.deep.equal([]);
      expect(() => decideAccount(requeue(1), given([...charged, refunded(1), reserved('r2', '50')]))).to.throw(InsufficientBalance);
    });

    it('records the refund and the charge together for a requeue before the refund: the late refund then decides nothing', () => {
      expect(decideAccount(requeue(1), given(charged))).to.deep.equal([
        { ...refunded(1), data: { ...refunded(1).data, reason: 'requeued by ops', timestamp: 30 } },
        recharged(1),
      ]);
      const state = given([...charged, refunded(1), recharged(1)]);
      expect(availableOf(state)).to.equal(40n);
      expect(decideAccount(refund(1), state)).to.deep.equal([]);
      // failing again after the requeue, it is refunded again
      expect(decideAccount(refund(2), state)).to.deep.equal([refunded(2)]);
    });

    it('never refunds twice a charge that was not charged again (a requeue recorded without its charge)', () => {
      expect(decideAccount(refund(2), given([...charged, refunded(1)]))).to.deep.equal([]);
    });
  });
});
