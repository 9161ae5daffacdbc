import { match } from 'ts-pattern';
import { InsufficientBalance, InvalidRequest } from '../errors.js';
import type { AccountEvent, OnChainTransfer } from './events.js';
import { approvalAvailable, availableOf, type AccountState } from './state.js';

/**
 * The account aggregate. Pure: time and ids come in the command. A repeated command (the same
 * reservation settled twice, a credit id credited again, a revoked approval revoked again) decides nothing.
 */
export type AccountCommand =
  | { type: 'Credit'; data: { address: string; winc: bigint; creditId: string; reason?: string; onChain?: OnChainTransfer; now: number } }
  | {
      type: 'Reserve';
      data: { address: string; reservationId: string; winc: bigint; dataItemId: string; onBehalfOf?: string; now: number };
    }
  | { type: 'Settle'; data: { address: string; reservationId: string; now: number } }
  | { type: 'Release'; data: { address: string; reservationId: string; reason: string; now: number } }
  | {
      type: 'Approve';
      data: { address: string; approvedAddress: string; winc: bigint; expiresAt?: number; approvalDataItemId?: string; now: number };
    }
  | { type: 'Revoke'; data: { address: string; approvedAddress: string; revokeDataItemId?: string; now: number } }
  /** the item's charge back: it is FAILED now, for the `failure`-th time (the refunder) */
  | { type: 'Refund'; data: { address: string; dataItemId: string; reservationId: string; winc: bigint; failure: number; reason: string; now: number } }
  /** an operator requeues the item, FAILED for the `failure`-th time: its charge must stand again */
  | {
      type: 'ChargeForRequeue';
      data: { address: string; dataItemId: string; reservationId: string; winc: bigint; failure: number; by: string; now: number };
    };

/** a command no account can take (a zero credit, a self-approval): a 400 for the operator */
export class InvalidAccountCommand extends InvalidRequest {}

export const decideAccount = (command: AccountCommand, state: AccountState): AccountEvent[] =>
  match(command)
    .returnType<AccountEvent[]>()
    .with({ type: 'Credit' }, ({ data }) => {
      if (state.creditIds.has(data.creditId)) return [];
      if (data.winc <= 0n) throw new InvalidAccountCommand('a credit must be a positive amount of winc');
      return [
        {
          type: 'AccountCredited',
          data: {
            address: data.address,
            winc: data.winc.toString(),
            creditId: data.creditId,
            ...(data.reason !== undefined ? { reason: data.reason } : {}),
            ...(data.onChain !== undefined ? { onChain: data.onChain } : {}),
            timestamp: data.now,
          },
        },
      ];
    })
    .with({ type: 'Reserve' }, ({ data }) => {
      if (state.reservations.has(data.reservationId)) return [];
      if (data.winc <= 0n) throw new InvalidAccountCommand('a reservation must be a positive amount of winc');
      if (data.onBehalfOf !== undefined && approvalAvailable(state, data.onBehalfOf, data.now) < data.winc) {
        throw new InsufficientBalance(`${data.address} has not approved ${data.onBehalfOf} for ${data.winc} winc`);
      }
      if (availableOf(state) < data.winc) throw new InsufficientBalance(`${data.address} cannot pay ${data.winc} winc`);
      return [
        {
          type: 'BalanceReserved',
          data: {
            address: data.address,
            reservationId: data.reservationId,
            winc: data.winc.toString(),
            dataItemId: data.dataItemId,
            ...(data.onBehalfOf !== undefined ? { onBehalfOf: data.onBehalfOf } : {}),
            timestamp: data.now,
          },
        },
      ];
    })
    .with({ type: 'Settle' }, { type: 'Release' }, (c) => {
      const r = state.reservations.get(c.data.reservationId);
      if (!r) return [];
      const common = { address: c.data.address, reservationId: c.data.reservationId, winc: r.winc.toString(), dataItemId: r.dataItemId };
      return c.type === 'Settle'
        ? [{ type: 'ReservationSettled', data: { ...common, timestamp: c.data.now } }]
        : [{ type: 'ReservationReleased', data: { ...common, reason: c.data.reason, timestamp: c.data.now } }];
    })
    .with({ type: 'Approve' }, ({ data }) => {
      if (data.approvalDataItemId !== undefined && state.taggedItemIds.has(data.approvalDataItemId)) return [];
      if (data.winc <= 0n) throw new InvalidAccountCommand('an approval must be a positive amount of winc');
      if (data.approvedAddress === data.address) throw new InvalidAccountCommand('an account cannot approve itself');
      return [
        {
          type: 'PaymentApproved',
          data: {
            address: data.address,
            approvedAddress: data.approvedAddress,
            winc: data.winc.toString(),
            ...(data.expiresAt !== undefined ? { expiresAt: data.expiresAt } : {}),
            ...(data.approvalDataItemId !== undefined ? { approvalDataItemId: data.approvalDataItemId } : {}),
            timestamp: data.now,
          },
        },
      ];
    })
    .with({ type: 'Revoke' }, ({ data }) => {
      if (data.revokeDataItemId !== undefined && state.taggedItemIds.has(data.revokeDataItemId)) return [];
      if (!state.approvals.has(data.approvedAddress)) return [];
      const { address, approvedAddress, revokeDataItemId } = data;
      return [
        {
          type: 'PaymentApprovalRevoked',
          data: { address, approvedAddress, ...(revokeDataItemId !== undefined ? { revokeDataItemId } : {}), timestamp: data.now },
        },
      ];
    })
    .with({ type: 'Refund' }, ({ data }) => refund(state, data))
    .with({ type: 'ChargeForRequeue' }, ({ data }) => chargeForRequeue(state, data))
    .exhaustive();

type RefundData = Extract<AccountCommand, { type: 'Refund' }>['data'];
type ChargeForRequeueData = Extract<AccountCommand, { type: 'ChargeForRequeue' }>['data'];

/** a refund refused because the charge is not settled yet (its reservation is open): asked again later */
export class ChargeNotSettled extends Error {
  override readonly name = 'ChargeNotSettled';
}

const refundEvent = (data: RefundData | ChargeForRequeueData, reason: string): AccountEvent => ({
  type: 'ChargeRefunded',
  data: {
    address: data.address,
    dataItemId: data.dataItemId,
    reservationId: data.reservationId,
    winc: data.winc.toString(),
    failure: data.failure,
    reason,
    timestamp: data.now,
  },
});

/**
 * Once per failure, never twice for one charge: nothing when this failure (or a later one) was refunded
 * already, or when an earlier refund was never charged again (an item requeued without its recharge:
 * its one charge was given back already).
 */
function refund(state: AccountState, data: RefundData): AccountEvent[] {
  const before = state.refunds.get(data.dataItemId);
  if (before && (before.refunded >= data.failure || before.recharged < before.refunded)) return [];
  if (data.winc <= 0n) throw new InvalidAccountCommand('a refund must be a positive amount of winc');
  if (state.reservations.has(data.reservationId)) throw new ChargeNotSettled(`${data.dataItemId}: reservation ${data.reservationId} is not settled yet`);
  return [refundEvent(data, data.reason)];
}

/**
 * The requeue of a FAILED paid item leaves its charge standing: refunded already, it is charged again
 * (refused when the account cannot pay); not refunded yet, the refund and the charge are recorded
 * together, so a refunder still working on the failure finds it refunded and gives back nothing more.
 */
function chargeForRequeue(state: AccountState, data: ChargeForRequeueData): AccountEvent[] {
  const before = state.refunds.get(data.dataItemId) ?? { refunded: 0, recharged: 0, winc: data.winc };
  if (before.recharged >= data.failure) return [];
  const recharged: AccountEvent = {
    type: 'ItemRecharged',
    data: { address: data.address, dataItemId: data.dataItemId, winc: data.winc.toString(), failure: data.failure, by: data.by, timestamp: data.now },
  };
  if (before.refunded >= data.failure) {
    if (availableOf(state) < data.winc) throw new InsufficientBalance(`${data.address} cannot pay ${data.winc} winc to requeue ${data.dataItemId}`);
    return [recharged];
  }
  return [refundEvent(data, `requeued by ${data.by}`), recharged];
}
