import type { AccountRepository } from '../app/accounts.js';
import { KeyedLock } from '../app/keyedLock.js';
import { accountStream } from '../domain/account/ids.js';
import type { AccountState } from '../domain/account/state.js';
import { InvalidRequest } from '../domain/errors.js';
import type { EventMetadata, EventStore } from '../ports/eventStore.js';
import { balanceBody } from './balanceBody.js';

/**
 * The operator's account commands, shared by the admin API and the CLIs (nothing here is HTTP).
 * Input is already parsed: addresses canonical, amounts positive.
 */
export interface OperatorDeps {
  accounts: Pick<AccountRepository, 'execute' | 'read'>;
  eventStore: Pick<EventStore, 'readStream'>;
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

/** The credit answer: the balance after it, and the id that makes a retry safe. */
export const creditBody = (address: string, state: AccountState, creditId: string) => ({
  ...balanceBody(address, state),
  creditId,
});

export function createAccountOperations(deps: OperatorDeps) {
  // Serializes credits of one account in this process, so a retried credit id is looked up only
  // after the first one is stored.
  const creditLock = new KeyedLock();

  /**
   * The account decider does not remember credit ids, and appending the credit's deterministic event id
   * again after other events is a conflict, not a dedupe. So a known credit id decides nothing here.
   */
  async function alreadyCredited(address: string, creditId: string): Promise<boolean> {
    for await (const e of deps.eventStore.readStream(accountStream(address))) {
      if (e.type === 'AccountCredited' && (e.data as { creditId?: unknown }).creditId === creditId) return true;
    }
    return false;
  }

  return {
    credit(input: CreditInput, metadata: OperatorMetadata): Promise<OperatorOutcome> {
      return creditLock.run(input.address, async () => {
        if (await alreadyCredited(input.address, input.creditId)) return { state: await deps.accounts.read(input.address) };
        const { reason, ...rest } = input;
        return deps.accounts.execute(
          { type: 'Credit', data: { ...rest, ...(reason !== undefined ? { reason } : {}), now: deps.now() } },
          metadata,
        );
      });
    },

    approve(input: ApprovalInput, metadata: OperatorMetadata): Promise<OperatorOutcome> {
      const now = deps.now();
      if (input.expiresAt !== undefined && input.expiresAt <= now) {
        throw new InvalidRequest('the approval would expire before it is granted');
      }
      const { payer, expiresAt, ...rest } = input;
      return deps.accounts.execute(
        { type: 'Approve', data: { address: payer, ...rest, ...(expiresAt !== undefined ? { expiresAt } : {}), now } },
        metadata,
      );
    },

    /** revoking an approval that does not exist changes nothing and succeeds */
    revoke(input: { payer: string; approvedAddress: string }, metadata: OperatorMetadata): Promise<OperatorOutcome> {
      return deps.accounts.execute(
        { type: 'Revoke', data: { address: input.payer, approvedAddress: input.approvedAddress, now: deps.now() } },
        metadata,
      );
    },
  };
}

export type AccountOperations = ReturnType<typeof createAccountOperations>;
