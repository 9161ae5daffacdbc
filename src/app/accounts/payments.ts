import { randomUUID } from 'node:crypto';
import { InsufficientBalance } from '../../domain/errors.js';
import { approvalAvailable, availableOf } from '../../domain/account/state.js';
import type { AccountRepository } from './accounts.js';
import { metadataOf, type RequestContext } from '../context.js';

export interface Payment {
  payer: string;
  reservationId: string;
  winc: bigint;
}

/**
 * Reserves the price on the first payer of `x-paid-by` that has approved the owner and can pay,
 * else on the owner's own account. Throws InsufficientBalance when nobody can.
 */
export async function reservePayment(
  accounts: AccountRepository,
  request: { owner: string; paidBy: readonly string[]; winc: bigint; dataItemId: string; now: number; ctx: RequestContext },
): Promise<Payment> {
  const reservationId = randomUUID();
  const meta = metadataOf(request.ctx);
  const base = { reservationId, winc: request.winc, dataItemId: request.dataItemId, now: request.now };
  for (const payer of request.paidBy) {
    if (payer === request.owner) continue;
    try {
      await accounts.execute({ type: 'Reserve', data: { ...base, address: payer, onBehalfOf: request.owner } }, meta);
      return { payer, reservationId, winc: request.winc };
    } catch (error) {
      if (!(error instanceof InsufficientBalance)) throw error;
    }
  }
  await accounts.execute({ type: 'Reserve', data: { ...base, address: request.owner } }, meta);
  return { payer: request.owner, reservationId, winc: request.winc };
}

/**
 * Whether someone could pay `winc` for this owner right now (the owner, or an approving payer).
 * Only an early refusal, to spare receiving a large body: the reservation is what decides.
 */
export async function someoneCanPay(
  accounts: AccountRepository,
  request: { owner: string; paidBy: readonly string[]; winc: bigint; now: number },
): Promise<boolean> {
  for (const payer of request.paidBy) {
    if (payer === request.owner) continue;
    const state = await accounts.read(payer);
    if (approvalAvailable(state, request.owner, request.now) >= request.winc && availableOf(state) >= request.winc) return true;
  }
  return availableOf(await accounts.read(request.owner)) >= request.winc;
}

export const settlePayment = (accounts: AccountRepository, p: Payment, ctx: RequestContext, now: number) =>
  accounts.execute({ type: 'Settle', data: { address: p.payer, reservationId: p.reservationId, now } }, metadataOf(ctx));

export const releasePayment = (accounts: AccountRepository, p: Payment, reason: string, ctx: RequestContext, now: number) =>
  accounts.execute({ type: 'Release', data: { address: p.payer, reservationId: p.reservationId, reason, now } }, metadataOf(ctx));
