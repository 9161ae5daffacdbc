import type { AccountEvent } from '../src/domain/account/events.js';
import { evolveAccount, initialAccountState, type AccountState } from '../src/domain/account/state.js';
import { deserializeAccount, serializeAccount, type SerializedAccount } from '../src/domain/account/serialized.js';
import type { ProjectionDefinition } from './definition.js';

/**
 * The state each document this projection made was serialized from (documents are never changed in
 * place): the next event of the account folds on it rather than on the document parsed back into a
 * state. A rebuild holds an account's document across batches, so most events of an account find it.
 */
const stateOf = new WeakMap<SerializedAccount, AccountState>();

function evolved(doc: SerializedAccount | undefined, event: AccountEvent): SerializedAccount {
  const state = evolveAccount(doc === undefined ? initialAccountState : (stateOf.get(doc) ?? deserializeAccount(doc)), event);
  const serialized = serializeAccount(state);
  stateOf.set(serialized, state);
  return serialized;
}

/**
 * Each account as its events add up, folded with the aggregate's own `evolve`, so the read model
 * and a replay of the stream cannot disagree. Answers `GET /account/balance/:address`.
 */
export const accountBalanceProjection: ProjectionDefinition<SerializedAccount, AccountEvent> = {
  name: 'account-balance',
  version: 1,
  handles: ['AccountCredited', 'BalanceReserved', 'ReservationSettled', 'ReservationReleased', 'PaymentApproved', 'PaymentApprovalRevoked'],
  documentIds: (event) => [event.data.address],
  reduce: evolved,
};
