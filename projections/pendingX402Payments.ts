import { match } from 'ts-pattern';
import type { HandledEvent, ProjectionDefinition } from './definition.js';

/**
 * x402 settlements started and not ended, by payment id: neither credited (the `AccountCredited` whose
 * credit id is the payment id) nor failed. An upload in progress has one for the moment of its
 * settlement; one older than that is what a crash (or a lost answer) left, and the x402 recovery pass
 * asks the chain about it (src/app/x402/recovery.ts).
 */
export interface PendingX402Payment {
  network: string;
  payer: string;
  nonce: string;
  usdc: string;
  winc: string;
  validBefore: number;
  dataItemId: string;
  timestamp: number;
}

const handles = ['X402SettlementStarted', 'X402SettlementFailed', 'AccountCredited'] as const;
type PendingX402Event = HandledEvent<typeof handles>;

export const pendingX402PaymentsProjection: ProjectionDefinition<PendingX402Payment, PendingX402Event> = {
  name: 'pending-x402-payments',
  version: 1,
  handles,
  documentIds: (event) =>
    match(event)
      .returnType<readonly string[]>()
      .with({ type: 'X402SettlementStarted' }, { type: 'X402SettlementFailed' }, ({ data }) => [data.paymentId])
      // only an x402 payment's credit ends one (other credit ids never start with `x402:`)
      .with({ type: 'AccountCredited' }, ({ data }) => (data.creditId.startsWith('x402:') ? [data.creditId] : []))
      .exhaustive(),
  reduce: (_doc, event) =>
    match(event)
      .returnType<PendingX402Payment | undefined>()
      .with({ type: 'X402SettlementStarted' }, ({ data: d }) => ({
        network: d.network,
        payer: d.payer,
        nonce: d.nonce,
        usdc: d.usdc,
        winc: d.winc,
        validBefore: d.validBefore,
        dataItemId: d.dataItemId,
        timestamp: d.timestamp,
      }))
      .with({ type: 'AccountCredited' }, { type: 'X402SettlementFailed' }, () => undefined)
      .exhaustive(),
};
