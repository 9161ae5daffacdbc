import { match } from 'ts-pattern';
import { streamName, type StreamName } from '../../ports/eventStore.js';
import type { X402PaymentEvent, X402SettlementStarted } from './events.js';

/** the id of an x402 payment and of the credit it buys: one per network, payer and nonce, whatever spelling was sent */
export const x402PaymentId = (network: string, payer: string, nonce: string) => `x402:${network}:${payer.toLowerCase()}:${nonce.toLowerCase()}`;

/** One stream per authorization: its settlement is started once at a time (created with "no stream"). */
export const x402PaymentStream = (paymentId: string): StreamName => streamName(`x402Payment-${paymentId}`);

/** none yet; a settlement started (settled or not: the account's credit says); or the last one failed */
export type X402PaymentState = { status: 'none' } | { status: 'started'; started: X402SettlementStarted['data'] } | { status: 'failed' };

export const initialX402PaymentState: X402PaymentState = { status: 'none' };

export type X402PaymentCommand =
  { type: 'StartSettlement'; data: X402SettlementStarted['data'] } | { type: 'FailSettlement'; data: { paymentId: string; reason: string; now: number } };

export const keyOfX402Payment = (c: X402PaymentCommand): string => c.data.paymentId;

/**
 * An authorization pays once: a settlement is started only when none is under way or done (a second
 * start decides nothing, and the caller refuses the payment); after a failure (the USDC not taken)
 * the same authorization may be presented again. Only a started settlement fails.
 */
export const decideX402Payment = (command: X402PaymentCommand, state: X402PaymentState): X402PaymentEvent[] =>
  match(command)
    .returnType<X402PaymentEvent[]>()
    .with({ type: 'StartSettlement' }, ({ data }) => (state.status === 'started' ? [] : [{ type: 'X402SettlementStarted', data }]))
    .with({ type: 'FailSettlement' }, ({ data }) =>
      state.status === 'started'
        ? [{ type: 'X402SettlementFailed', data: { paymentId: data.paymentId, payer: state.started.payer, reason: data.reason, timestamp: data.now } }]
        : [],
    )
    .exhaustive();

export const evolveX402Payment = (_state: X402PaymentState, event: X402PaymentEvent): X402PaymentState =>
  match(event)
    .returnType<X402PaymentState>()
    .with({ type: 'X402SettlementStarted' }, ({ data }) => ({ status: 'started', started: data }))
    .with({ type: 'X402SettlementFailed' }, () => ({ status: 'failed' }))
    .exhaustive();
