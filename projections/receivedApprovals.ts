import { match } from 'ts-pattern';
import type { AccountEvent } from '../src/domain/account/events.js';
import type { HandledEvent, ProjectionDefinition } from './definition.js';

const handles = ['PaymentApproved', 'PaymentApprovalRevoked'] as const;
type ApprovalEvent = HandledEvent<typeof handles>;

/** The payers that have approved an address (granted and not revoked since), sorted; empty after the last revocation. */
export interface ReceivedApprovalsDocument {
  payers: string[];
}

/**
 * Approvals by the approved address: an account's own stream keys them by payer, so "who may pay for
 * me" needs this index. It holds only who approved; what each approval still allows is read from the
 * payer's `account-balance` document, so spending and expiry need no second copy here. Answers the
 * `receivedApprovals` of `GET /account/balance/:token?address=` (turbo's CLI pays with those payers).
 */
export const receivedApprovalsProjection: ProjectionDefinition<ReceivedApprovalsDocument, ApprovalEvent> = {
  name: 'received-approvals',
  version: 1,
  handles,
  documentIds: (event) => [event.data.approvedAddress],
  reduce: (doc, event) => {
    const payers = new Set(doc?.payers ?? []);
    match(event)
      .with({ type: 'PaymentApproved' }, ({ data }) => payers.add(data.address))
      .with({ type: 'PaymentApprovalRevoked' }, ({ data }) => payers.delete(data.address))
      .exhaustive();
    // kept when empty, as account documents are: an address once approved stays listed, with no payers
    return { payers: [...payers].sort() };
  },
};
