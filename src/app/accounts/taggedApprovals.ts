import { InvalidAddress, InvalidRequest } from '../../domain/errors.js';
import { parseAccountAddress } from '../../domain/account/ids.js';
import type { Approval } from '../../domain/account/state.js';
import type { Tag } from '../../verify/types.js';
import type { AccountRepository } from './accounts.js';
import { metadataOf, type RequestContext } from '../context.js';

/**
 * Credit sharing by tagged upload: the payer signs an item whose tags grant or revoke an approval, and
 * the upload's answer carries what changed. Tag names are the reference's (ardriveapp/turbo-upload-service
 * src/constants.ts at c660dd8: `x-approve-payment`, `x-amount`, `x-expires-seconds`,
 * `x-delete-payment-approval`; turbo-sdk's `creditSharingTagNames`) and Irys's
 * (Irys-xyz/arweave-js-sdk src/common/approval.ts at 985ba09: `x-irys-approve-payment`,
 * `x-irys-delete-payment-approval`, `x-expire-seconds`). The approvals are the operator's kind
 * (accountOperations.ts): an allowance on the payer's credits, one per approved address, replaced by a new one.
 */
const APPROVE = ['x-approve-payment', 'x-irys-approve-payment'];
const REVOKE = ['x-delete-payment-approval', 'x-irys-delete-payment-approval'];
const AMOUNT = ['x-amount'];
const EXPIRES = ['x-expires-seconds', 'x-expire-seconds'];

/** more winc than the 66 million AR that can ever exist (6.6e19) is no amount anyone can share */
const MAX_WINC_DIGITS = 30;
/** an expiry further than a century is not one a person meant; it also keeps the ms a safe integer */
const MAX_EXPIRES_SECONDS = 100 * 365 * 86_400;

export type TaggedApproval =
  { kind: 'approve'; approvedAddress: string; winc: bigint; expiresInSeconds?: number } | { kind: 'revoke'; approvedAddress: string };

/** an approval as the reference's payment service returns it (turbo-upload-service src/arch/payment.ts `DelegatedPaymentApproval`) */
export interface DelegatedPaymentApproval {
  approvalDataItemId?: string;
  approvedAddress: string;
  payingAddress: string;
  approvedWincAmount: string;
  usedWincAmount: string;
  creationDate?: string;
  expirationDate?: string;
}

export interface TaggedApprovalAnswer {
  createdApproval?: DelegatedPaymentApproval;
  revokedApprovals?: DelegatedPaymentApproval[];
}

const first = (tags: readonly Tag[], names: readonly string[]) => tags.find((t) => names.includes(t.name))?.value;

function approvedAddressOf(value: string, payer: string): string {
  const address = parseAccountAddress(value);
  if (address === undefined) throw new InvalidAddress(`approval tag names ${JSON.stringify(value.slice(0, 100))}`);
  if (address === payer) throw new InvalidRequest('an account cannot approve itself');
  return address;
}

function wincOf(value: string | undefined): bigint {
  if (value === undefined) throw new InvalidRequest('an approval names its x-amount');
  if (!/^\d+$/.test(value) || value.length > MAX_WINC_DIGITS || BigInt(value) === 0n) {
    throw new InvalidRequest(`x-amount must be a positive whole number of winc: ${JSON.stringify(value.slice(0, 100))}`);
  }
  return BigInt(value);
}

function expiresOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,10}$/.test(value) || Number(value) === 0 || Number(value) > MAX_EXPIRES_SECONDS) {
    throw new InvalidRequest(`the expiry must be a positive whole number of seconds: ${JSON.stringify(value.slice(0, 100))}`);
  }
  return Number(value);
}

/**
 * What an item's tags ask of its signer's account, or undefined when they ask nothing. Thrown (before
 * anything is reserved or stored): `Invalid address` for an approved address that names no account,
 * `Invalid request` for an amount or expiry that is not a positive whole number, a self-approval, or an
 * item that both grants and revokes.
 */
export function taggedApprovalOf(tags: readonly Tag[], payer: string): TaggedApproval | undefined {
  const approve = first(tags, APPROVE);
  const revoke = first(tags, REVOKE);
  if (approve !== undefined && revoke !== undefined) throw new InvalidRequest('an item either grants or revokes an approval');
  if (revoke !== undefined) return { kind: 'revoke', approvedAddress: approvedAddressOf(revoke, payer) };
  if (approve === undefined) return undefined;
  const approvedAddress = approvedAddressOf(approve, payer);
  const winc = wincOf(first(tags, AMOUNT));
  const expiresInSeconds = expiresOf(first(tags, EXPIRES));
  return { kind: 'approve', approvedAddress, winc, ...(expiresInSeconds !== undefined ? { expiresInSeconds } : {}) };
}

/** A revocation of nothing is refused, as the reference refuses it (its payment service's NoApprovalsFound, answered 400). */
export async function ensureRevocable(accounts: Pick<AccountRepository, 'read'>, payer: string, tagged: TaggedApproval | undefined): Promise<void> {
  if (tagged?.kind !== 'revoke') return;
  if (!(await accounts.read(payer)).approvals.has(tagged.approvedAddress)) {
    throw new InvalidRequest(`${payer} has no approval for ${tagged.approvedAddress} to revoke`);
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

/** an approval of the account's state in the reference's shape */
export function delegatedApproval(payingAddress: string, approvedAddress: string, a: Approval): DelegatedPaymentApproval {
  const approved = a.approvedWinc ?? a.remaining.toString();
  return {
    ...(a.approvalDataItemId !== undefined ? { approvalDataItemId: a.approvalDataItemId } : {}),
    approvedAddress,
    payingAddress,
    approvedWincAmount: approved,
    usedWincAmount: (BigInt(approved) - a.remaining).toString(),
    ...(a.createdAt !== undefined ? { creationDate: iso(a.createdAt) } : {}),
    ...(a.expiresAt !== undefined ? { expirationDate: iso(a.expiresAt) } : {}),
  };
}

/**
 * Applies an accepted item's approval or revocation to its signer's account, once per item (the account
 * keeps the tagged item ids: a re-sent item, or a retry after this failed, applies nothing twice).
 * Answers the approval as it now stands, or the one revoked; `position` when events were appended.
 */
export async function applyTaggedApproval(
  accounts: Pick<AccountRepository, 'execute' | 'read'>,
  tagged: TaggedApproval,
  input: { payer: string; dataItemId: string; now: number; ctx: RequestContext },
): Promise<{ answer: TaggedApprovalAnswer; position?: bigint }> {
  const { payer, dataItemId, now } = input;
  const meta = metadataOf(input.ctx);
  if (tagged.kind === 'approve') {
    const expiresAt = tagged.expiresInSeconds !== undefined ? now + tagged.expiresInSeconds * 1000 : undefined;
    const data = { address: payer, approvedAddress: tagged.approvedAddress, winc: tagged.winc, approvalDataItemId: dataItemId, now };
    const { state, position } = await accounts.execute({ type: 'Approve', data: { ...data, ...(expiresAt !== undefined ? { expiresAt } : {}) } }, meta);
    const approval = state.approvals.get(tagged.approvedAddress);
    // answered only while the approval this item granted stands (not one revoked or replaced since)
    const answer = approval?.approvalDataItemId === dataItemId ? { createdApproval: delegatedApproval(payer, tagged.approvedAddress, approval) } : {};
    return { answer, ...(position !== undefined ? { position } : {}) };
  }
  const { state, position } = await accounts.execute(
    { type: 'Revoke', data: { address: payer, approvedAddress: tagged.approvedAddress, revokeDataItemId: dataItemId, now } },
    meta,
  );
  // what this item revoked, whether now or when it was first uploaded (a re-sent item answers as it did);
  // an item accepted while another revoked the approval first revoked nothing: an empty list, which
  // turbo-sdk's revokeCredits returns (it throws "upload has succeeded" on a missing one)
  const revoked = state.revocations.get(dataItemId);
  const revokedApprovals = revoked ? [delegatedApproval(payer, revoked.approvedAddress, revoked.approval)] : [];
  return { answer: { revokedApprovals }, ...(position !== undefined ? { position } : {}) };
}
