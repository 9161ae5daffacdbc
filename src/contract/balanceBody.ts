import type { SerializedAccount } from '../domain/account/serialized.js';
import { deserializeAccount } from '../domain/account/serialized.js';
import type { ReceivedApproval } from '../queries/receivedApprovals.js';
import { availableOf, initialAccountState, reservedOf, type AccountState } from '../domain/account/state.js';

/**
 * The one JSON shape of an account, shared by the public balance query, the admin API and the
 * operator CLIs' `--json`. Amounts in winc, decimal strings; `winc` is what can still be reserved.
 */
export function balanceBody(address: string, state: AccountState) {
  return {
    address,
    winc: availableOf(state).toString(),
    creditedWinc: state.credited.toString(),
    spentWinc: state.spent.toString(),
    reservedWinc: reservedOf(state).toString(),
    givenApprovals: [...state.approvals].map(([approvedAddress, a]) => ({
      approvedAddress,
      remainingWinc: a.remaining.toString(),
      ...(a.expiresAt !== undefined ? { expiresAt: new Date(a.expiresAt).toISOString() } : {}),
    })),
  };
}
export type BalanceBody = ReturnType<typeof balanceBody>;

/** The balance body of a read-model document; an account never credited reads as all zeros. */
export const balanceBodyOfDocument = (address: string, doc: SerializedAccount | undefined): BalanceBody =>
  balanceBody(address, doc ? deserializeAccount(doc) : initialAccountState);

/** The credit answer: the balance after it, and the id that makes a retry safe. */
export const creditBody = (address: string, state: AccountState, creditId: string) => ({
  ...balanceBody(address, state),
  creditId,
});

/**
 * The balance by token and address, in the shapes the clients parse: Irys/Bundlr read `balance`,
 * turbo-sdk reads `winc` and the approval lists (its CLI pays with `receivedApprovals`' payers).
 * Approvals are allowances on the payer's credits, not transfers: they lock nothing, so
 * `controlledWinc` is `winc`; `effectiveBalance` adds what the received approvals let this address
 * spend now.
 */
export function tokenBalanceBody(address: string, doc: SerializedAccount | undefined, received: readonly ReceivedApproval[]) {
  const body = balanceBodyOfDocument(address, doc);
  const fromApprovals = received.reduce((sum, r) => sum + r.spendable, 0n);
  return {
    balance: body.winc,
    winc: body.winc,
    controlledWinc: body.winc,
    effectiveBalance: (BigInt(body.winc) + fromApprovals).toString(),
    givenApprovals: body.givenApprovals.map(({ approvedAddress, remainingWinc, expiresAt }) => ({
      payingAddress: address,
      approvedAddress,
      remainingWinc,
      ...(expiresAt !== undefined ? { expirationDate: expiresAt } : {}),
    })),
    receivedApprovals: received.map((r) => ({
      payingAddress: r.payingAddress,
      approvedAddress: address,
      remainingWinc: r.remaining.toString(),
      ...(r.expiresAt !== undefined ? { expirationDate: new Date(r.expiresAt).toISOString() } : {}),
    })),
  };
}
