import { match } from 'ts-pattern';
import { InvalidTransaction } from '../errors.js';
import type { TopUpClaimed, TopUpEvent } from './events.js';
import { creditIdOfTransfer } from './ids.js';

/** A claimed transfer, or none yet. */
export type TopUpState = { status: 'unclaimed' } | { status: 'claimed'; claim: TopUpClaimed['data'] } | { status: 'expired' };

export const initialTopUpState: TopUpState = { status: 'unclaimed' };

export type TopUpCommand =
  | { type: 'Claim'; data: TopUpClaimed['data'] }
  /** the chain does not know the claimed transaction, `now` is past the claim's age limit (checked by the caller) */
  | { type: 'Expire'; data: { token: string; txId: string; now: number } };

/** the stream key of a command: the chain and the transaction, canonical (one stream whatever the spelling) */
export const keyOfTopUp = (c: TopUpCommand): string => creditIdOfTransfer(c.data.token, c.data.txId);

/**
 * A transaction is claimed once: a second claim is refused (the contract's `Invalid transaction`),
 * not ignored, so a user learns that this transaction credits nothing more. A claim that expired
 * (its transaction vanished from the chain) may be made again. The facts (sender,
 * amount, confirmations) were read from the chain before the command.
 */
export const decideTopUp = (command: TopUpCommand, state: TopUpState): TopUpEvent[] =>
  match(command)
    .returnType<TopUpEvent[]>()
    .with({ type: 'Claim' }, ({ data }) => {
      if (state.status === 'claimed') throw new InvalidTransaction(`${data.token} transaction ${data.txId} was already claimed`);
      if (BigInt(data.winc) <= 0n) throw new InvalidTransaction(`${data.token} transaction ${data.txId} is worth no winc`);
      return [{ type: 'TopUpClaimed', data }];
    })
    .with({ type: 'Expire' }, ({ data }) =>
      // only a claim not credited yet expires; the caller saw it pending in the read model
      state.status === 'claimed' && !state.claim.confirmed
        ? [
            {
              type: 'TopUpExpired',
              data: { token: data.token, txId: data.txId, address: state.claim.address, claimedAt: state.claim.timestamp, timestamp: data.now },
            },
          ]
        : [],
    )
    .exhaustive();

export const evolveTopUp = (_state: TopUpState, event: TopUpEvent): TopUpState =>
  match(event)
    .returnType<TopUpState>()
    .with({ type: 'TopUpClaimed' }, ({ data }) => ({ status: 'claimed', claim: data }))
    .with({ type: 'TopUpExpired' }, () => ({ status: 'expired' }))
    .exhaustive();
