import { randomUUID } from 'node:crypto';
import { InsufficientBalance } from '../domain/errors.js';
import type { AccountRepository } from './accounts.js';
import { metadataOf, type RequestContext } from './context.js';

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

export const settlePayment = (accounts: AccountRepository, p: Payment, ctx: RequestContext, now: number) =>
  accounts.execute({ type: 'Settle', data: { address: p.payer, reservationId: p.reservationId, now } }, metadataOf(ctx));

export const releasePayment = (accounts: AccountRepository, p: Payment, reason: string, ctx: RequestContext, now: number) =>
  accounts.execute({ type: 'Release', data: { address: p.payer, reservationId: p.reservationId, reason, now } }, metadataOf(ctx));
