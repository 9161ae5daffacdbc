import type { AccountState } from './state.js';

/** AccountState as JSON (amounts as decimal strings), for read models. */
export interface SerializedAccount {
  creditIds: string[];
  credited: string;
  spent: string;
  reservations: Record<string, { winc: string; dataItemId: string; onBehalfOf?: string }>;
  approvals: Record<string, { remaining: string; expiresAt?: number; approvedWinc?: string; createdAt?: number; approvalDataItemId?: string }>;
  /** absent in documents written before tagged approvals */
  taggedItemIds?: string[];
  /** absent in documents written before refunds */
  refunds?: Record<string, { refunded: number; recharged: number; winc: string }>;
  /** absent when the account revoked nothing by a tagged item (and in documents written before) */
  revocations?: Record<string, { approvedAddress: string; approval: SerializedApproval }>;
}

type SerializedApproval = SerializedAccount['approvals'][string];

export const serializeAccount = (s: AccountState): SerializedAccount => ({
  creditIds: [...s.creditIds],
  credited: s.credited.toString(),
  spent: s.spent.toString(),
  reservations: Object.fromEntries([...s.reservations].map(([id, r]) => [id, { ...r, winc: r.winc.toString() }])),
  approvals: Object.fromEntries([...s.approvals].map(([a, ap]) => [a, { ...ap, remaining: ap.remaining.toString() }])),
  taggedItemIds: [...s.taggedItemIds],
  ...(s.refunds.size > 0 ? { refunds: Object.fromEntries([...s.refunds].map(([id, r]) => [id, { ...r, winc: r.winc.toString() }])) } : {}),
  ...(s.revocations.size > 0
    ? {
        revocations: Object.fromEntries(
          [...s.revocations].map(([id, r]) => [
            id,
            { approvedAddress: r.approvedAddress, approval: { ...r.approval, remaining: r.approval.remaining.toString() } },
          ]),
        ),
      }
    : {}),
});

export const deserializeAccount = (s: SerializedAccount): AccountState => ({
  creditIds: new Set(s.creditIds),
  credited: BigInt(s.credited),
  spent: BigInt(s.spent),
  reservations: new Map(Object.entries(s.reservations).map(([id, r]) => [id, { ...r, winc: BigInt(r.winc) }])),
  approvals: new Map(Object.entries(s.approvals).map(([a, ap]) => [a, { ...ap, remaining: BigInt(ap.remaining) }])),
  taggedItemIds: new Set(s.taggedItemIds ?? []),
  refunds: new Map(Object.entries(s.refunds ?? {}).map(([id, r]) => [id, { ...r, winc: BigInt(r.winc) }])),
  revocations: new Map(
    Object.entries(s.revocations ?? {}).map(([id, r]) => [
      id,
      { approvedAddress: r.approvedAddress, approval: { ...r.approval, remaining: BigInt(r.approval.remaining) } },
    ]),
  ),
});
