import type { AccountEvent } from '../src/domain/account/events.js';
import { evolveAccount, initialAccountState } from '../src/domain/account/state.js';
import { deserializeAccount, serializeAccount, type SerializedAccount } from '../src/domain/account/serialized.js';
import type { ProjectionDefinition } from './definition.js';

/**
 * Each account as its events add up, folded with the aggregate's own `evolve`, so the read model
 * and a replay of the stream cannot disagree. Answers `GET /account/balance/:address`.
 */
export const accountBalanceProjection: ProjectionDefinition<SerializedAccount, AccountEvent> = {
  name: 'account-balance',
  version: 1,
  handles: [
    'AccountCredited',
    'BalanceReserved',
    'ReservationSettled',
    'ReservationReleased',
    'PaymentApproved',
    'PaymentApprovalRevoked',
    'ChargeRefunded',
    'ItemRecharged',
  ],
  documentIds: (event) => [event.data.address],
  reduce: (doc, event) => serializeAccount(evolveAccount(doc ? deserializeAccount(doc) : initialAccountState, event)),
};
