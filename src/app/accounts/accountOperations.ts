import type { AccountRepository } from './accounts.js';
import type { AccountState } from '../../domain/account/state.js';
import { InvalidRequest } from '../../domain/errors.js';
import type { EventMetadata } from '../../ports/eventStore.js';

/**
 * The operator's account commands, shared by the admin API and the CLIs (nothing here is HTTP).
 * Input is already parsed: addresses canonical, amounts positive.
 */
export interface OperatorDeps {
  accounts: Pick<AccountRepository, 'execute' | 'read'>;
  now: () => number;
}

export type OperatorMetadata = Omit<EventMetadata, 'schemaVersion'>;

export interface OperatorOutcome {
  /** the account after the command */
  state: AccountState;
  /** position of the appended events; absent when the command changed nothing */
  position?: bigint;
}

export interface CreditInput {
  address: string;
  winc: bigint;
  creditId: string;
  reason?: string;
}

export interface ApprovalInput {
  payer: string;
  approvedAddress: string;
  winc: bigint;
  expiresAt?: number;
}

export function createAccountOperations(deps: OperatorDeps) {
  return {
    credit(input: CreditInput, metadata: OperatorMetadata): Promise<OperatorOutcome> {
      // the account remembers credit ids: the same id again decides nothing
      const { reason, ...rest } = input;
      return deps.accounts.execute({ type: 'Credit', data: { ...rest, ...(reason !== undefined ? { reason } : {}), now: deps.now() } }, metadata);
    },

    approve(input: ApprovalInput, metadata: OperatorMetadata): Promise<OperatorOutcome> {
      const now = deps.now();
      if (input.expiresAt !== undefined && input.expiresAt <= now) {
        throw new InvalidRequest('the approval would expire before it is granted');
      }
      const { payer, expiresAt, ...rest } = input;
      return deps.accounts.execute({ type: 'Approve', data: { address: payer, ...rest, ...(expiresAt !== undefined ? { expiresAt } : {}), now } }, metadata);
    },

    /** revoking an approval that does not exist changes nothing and succeeds */
    revoke(input: { payer: string; approvedAddress: string }, metadata: OperatorMetadata): Promise<OperatorOutcome> {
      return deps.accounts.execute({ type: 'Revoke', data: { address: input.payer, approvedAddress: input.approvedAddress, now: deps.now() } }, metadata);
    },
  };
}

export type AccountOperations = ReturnType<typeof createAccountOperations>;
