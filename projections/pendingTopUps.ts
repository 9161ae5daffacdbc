import { match } from 'ts-pattern';
import { creditIdOfTransfer } from '../src/domain/topUp/ids.js';
import type { HandledEvent, ProjectionDefinition } from './definition.js';

/**
 * Top-ups claimed and not credited yet, by credit id (`<token>:<txId>`): a transaction still short
 * of its confirmations at the claim, or a claim whose credit did not happen (a crash in between).
 * The periodic top-up pass reads it; the credit (an on-chain `AccountCredited`) or the claim's
 * expiry (`TopUpExpired`: the chain no longer knows the transaction) removes the entry.
 */
export interface PendingTopUp {
  token: string;
  txId: string;
  address: string;
  winc: string;
  timestamp: number;
}

const handles = ['TopUpClaimed', 'TopUpExpired', 'AccountCredited'] as const;
type PendingTopUpEvent = HandledEvent<typeof handles>;

export const pendingTopUpsProjection: ProjectionDefinition<PendingTopUp, PendingTopUpEvent> = {
  name: 'pending-top-ups',
  // v2: keyed by the canonical transaction id (creditIdOfTransfer), whatever spelling a claim stored before
  version: 2,
  handles,
  documentIds: (event) =>
    match(event)
      .returnType<readonly string[]>()
      .with({ type: 'TopUpClaimed' }, { type: 'TopUpExpired' }, ({ data }) => [creditIdOfTransfer(data.token, data.txId)])
      // an operator's credit is no top-up
      .with({ type: 'AccountCredited' }, ({ data }) => (data.onChain !== undefined ? [data.creditId] : []))
      .exhaustive(),
  reduce: (_doc, event) =>
    match(event)
      .returnType<PendingTopUp | undefined>()
      .with({ type: 'TopUpClaimed' }, ({ data }) => ({ token: data.token, txId: data.txId, address: data.address, winc: data.winc, timestamp: data.timestamp }))
      .with({ type: 'AccountCredited' }, { type: 'TopUpExpired' }, () => undefined)
      .exhaustive(),
};
