import type { AccountEvent } from './events.js';

/** What an account's events add up to. Amounts in winc. */
export interface Reservation {
  winc: bigint;
  dataItemId: string;
  onBehalfOf?: string;
}

export interface Approval {
  /** what the approved owner may still spend, before counting open reservations */
  remaining: bigint;
  expiresAt?: number;
  /** as granted (absent on approvals recorded before these were kept): what was approved, when, by which tagged item */
  approvedWinc?: string;
  createdAt?: number;
  approvalDataItemId?: string;
}

/** an item whose charge was refunded: the last failure refunded and the last one recharged (by a requeue) */
export interface ItemRefunds {
  refunded: number;
  recharged: number;
  winc: bigint;
}

export interface AccountState {
  /** ids of the credits applied, so a retried credit applies once */
  creditIds: ReadonlySet<string>;
  credited: bigint;
  spent: bigint;
  reservations: ReadonlyMap<string, Reservation>;
  approvals: ReadonlyMap<string, Approval>;
  /** ids of the tagged items whose approval or revocation was applied, so a re-sent item applies once */
  taggedItemIds: ReadonlySet<string>;
  /** items whose charge was refunded (few: failed items), so a refund applies once per failure */
  refunds: ReadonlyMap<string, ItemRefunds>;
  /**
   * what each item tagged `x-delete-payment-approval` revoked, by its id: the approval as it stood then
   * (a re-sent item answers it again, as its first upload did); an item that revoked nothing has none
   */
  revocations: ReadonlyMap<string, Revocation>;
}

export interface Revocation {
  approvedAddress: string;
  approval: Approval;
}

export const initialAccountState: AccountState = {
  creditIds: new Set(),
  credited: 0n,
  spent: 0n,
  reservations: new Map(),
  approvals: new Map(),
  taggedItemIds: new Set(),
  refunds: new Map(),
  revocations: new Map(),
};

const withTagged = (s: AccountState, id: string | undefined) => (id === undefined ? s.taggedItemIds : new Set(s.taggedItemIds).add(id));

export const reservedOf = (s: AccountState): bigint => [...s.reservations.values()].reduce((sum, r) => sum + r.winc, 0n);

/** whether a reservation for this item is open: an upload of it is between its reservation and its settlement */
export const holdsReservationFor = (s: AccountState, dataItemId: string): boolean => [...s.reservations.values()].some((r) => r.dataItemId === dataItemId);

/** what can still be reserved */
export const availableOf = (s: AccountState): bigint => s.credited - s.spent - reservedOf(s);

/** what an approved owner can still reserve from this account, ignoring the account's own balance */
export function approvalAvailable(s: AccountState, owner: string, now: number): bigint {
  const approval = s.approvals.get(owner);
  if (!approval || (approval.expiresAt !== undefined && now >= approval.expiresAt)) return 0n;
  let reserved = 0n;
  for (const r of s.reservations.values()) if (r.onBehalfOf === owner) reserved += r.winc;
  return approval.remaining - reserved;
}

const without = <V>(m: ReadonlyMap<string, V>, key: string) => {
  const copy = new Map(m);
  copy.delete(key);
  return copy;
};
const withEntry = <V>(m: ReadonlyMap<string, V>, key: string, value: V) => new Map(m).set(key, value);

/**
 * A switch (exhaustive: the return type and the linter's switch-exhaustiveness-check), not a ts-pattern
 * match: a rebuild folds every account event through here, and the match's builder cost a tenth of it.
 */
export function evolveAccount(s: AccountState, event: AccountEvent): AccountState {
  switch (event.type) {
    case 'AccountCredited':
      return { ...s, creditIds: new Set(s.creditIds).add(event.data.creditId), credited: s.credited + BigInt(event.data.winc) };
    case 'BalanceReserved': {
      const { data } = event;
      return {
        ...s,
        reservations: withEntry(s.reservations, data.reservationId, {
          winc: BigInt(data.winc),
          dataItemId: data.dataItemId,
          ...(data.onBehalfOf !== undefined ? { onBehalfOf: data.onBehalfOf } : {}),
        }),
      };
    }
    case 'ReservationSettled': {
      const { data } = event;
      const r = s.reservations.get(data.reservationId);
      const approval = r?.onBehalfOf !== undefined ? s.approvals.get(r.onBehalfOf) : undefined;
      return {
        ...s,
        spent: s.spent + BigInt(data.winc),
        reservations: without(s.reservations, data.reservationId),
        approvals:
          approval && r?.onBehalfOf !== undefined
            ? withEntry(s.approvals, r.onBehalfOf, { ...approval, remaining: approval.remaining - BigInt(data.winc) })
            : s.approvals,
      };
    }
    case 'ReservationReleased':
      return { ...s, reservations: without(s.reservations, event.data.reservationId) };
    case 'PaymentApproved': {
      const { data } = event;
      return {
        ...s,
        approvals: withEntry(s.approvals, data.approvedAddress, {
          remaining: BigInt(data.winc),
          ...(data.expiresAt !== undefined ? { expiresAt: data.expiresAt } : {}),
          approvedWinc: data.winc,
          createdAt: data.timestamp,
          ...(data.approvalDataItemId !== undefined ? { approvalDataItemId: data.approvalDataItemId } : {}),
        }),
        taggedItemIds: withTagged(s, data.approvalDataItemId),
      };
    }
    case 'PaymentApprovalRevoked': {
      const { approvedAddress, revokeDataItemId } = event.data;
      const approval = s.approvals.get(approvedAddress);
      return {
        ...s,
        approvals: without(s.approvals, approvedAddress),
        taggedItemIds: withTagged(s, revokeDataItemId),
        revocations: revokeDataItemId !== undefined && approval ? withEntry(s.revocations, revokeDataItemId, { approvedAddress, approval }) : s.revocations,
      };
    }
    // a refund gives back what was spent, a recharge spends it again: `credited` stays what was paid in
    case 'ChargeRefunded': {
      const { data } = event;
      const before = s.refunds.get(data.dataItemId) ?? { refunded: 0, recharged: 0, winc: BigInt(data.winc) };
      return {
        ...s,
        spent: s.spent - BigInt(data.winc),
        refunds: withEntry(s.refunds, data.dataItemId, { ...before, refunded: data.failure, winc: BigInt(data.winc) }),
      };
    }
    case 'ItemRecharged': {
      const { data } = event;
      const before = s.refunds.get(data.dataItemId) ?? { refunded: 0, recharged: 0, winc: BigInt(data.winc) };
      return { ...s, spent: s.spent + BigInt(data.winc), refunds: withEntry(s.refunds, data.dataItemId, { ...before, recharged: data.failure }) };
    }
  }
}
