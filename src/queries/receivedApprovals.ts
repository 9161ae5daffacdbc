import type { ReadStore } from '../ports/readStore.js';
import { deserializeAccount, type SerializedAccount } from '../domain/account/serialized.js';
import { approvalAvailable, availableOf } from '../domain/account/state.js';
import { accountBalanceProjection, collectionOf, receivedApprovalsProjection, type ReceivedApprovalsDocument } from '../../projections/index.js';

/** An approval some payer gave an address, as that payer's account stands now. */
export interface ReceivedApproval {
  payingAddress: string;
  /** what the approval still allows, before open reservations (as the payer's `givenApprovals` say) */
  remaining: bigint;
  /** what the address can spend through it now: the allowance left, at most the payer's available credits */
  spendable: bigint;
  expiresAt?: number;
}

/**
 * The approvals an address has received and that are in force at `now`: the payers come from the
 * `received-approvals` index, the amounts from each payer's own account document (the one the
 * upload path's decisions are replayed into), so an approval spent, revoked or expired reads as such.
 */
export function createReceivedApprovalsQuery(deps: { readStore: ReadStore; now: () => number }) {
  const { now } = deps;
  return async (address: string): Promise<ReceivedApproval[]> => {
    const index = await deps.readStore.get<ReceivedApprovalsDocument>(collectionOf(receivedApprovalsProjection), address);
    if (!index) return [];
    const accounts = await deps.readStore.getMany<SerializedAccount>(collectionOf(accountBalanceProjection), index.doc.payers);
    const at = now();
    const received: ReceivedApproval[] = [];
    for (const payingAddress of index.doc.payers) {
      const stored = accounts.get(payingAddress);
      if (!stored) continue;
      const payer = deserializeAccount(stored.doc);
      const approval = payer.approvals.get(address);
      if (!approval || (approval.expiresAt !== undefined && at >= approval.expiresAt)) continue;
      const allowed = approvalAvailable(payer, address, at);
      const available = availableOf(payer);
      const spendable = allowed < available ? allowed : available;
      received.push({
        payingAddress,
        remaining: approval.remaining,
        spendable: spendable > 0n ? spendable : 0n,
        ...(approval.expiresAt !== undefined ? { expiresAt: approval.expiresAt } : {}),
      });
    }
    return received;
  };
}
