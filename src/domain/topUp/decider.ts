import { match } from 'ts-pattern';
import { InvalidTransaction } from '../errors.js';
import type { TopUpClaimed, TopUpEvent } from './events.js';

/** A claimed transfer, or none yet. */
export type TopUpState = { status: 'unclaimed' } | { status: 'claimed'; claim: TopUpClaimed['data'] };

export const initialTopUpState: TopUpState = { status: 'unclaimed' };

export type TopUpCommand = { type: 'Claim'; data: TopUpClaimed['data'] };

/** the stream key of a command: the chain and the transaction */
export const keyOfTopUp = (c: TopUpCommand): string => `${c.data.token}:${c.data.txId}`;

/**
 * A transaction is claimed once: a second claim is refused (the contract's `Invalid transaction`),
 * not ignored, so a user learns that this transaction credits nothing more. The facts (sender,
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
    .exhaustive();

export const evolveTopUp = (_state: TopUpState, event: TopUpEvent): TopUpState =>
  match(event)
    .returnType<TopUpState>()
    .with({ type: 'TopUpClaimed' }, ({ data }) => ({ status: 'claimed', claim: data }))
    .exhaustive();
