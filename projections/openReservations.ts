import { match } from 'ts-pattern';
import type { AccountEvent } from '../src/domain/account/events.js';
import type { ProjectionDefinition } from './definition.js';

/** Reservations neither settled nor released: what the reconciler looks at. */
export interface OpenReservation {
  address: string;
  winc: string;
  dataItemId: string;
  timestamp: number;
}

type ReservationEvent = Extract<AccountEvent, { type: 'BalanceReserved' | 'ReservationSettled' | 'ReservationReleased' }>;

export const openReservationsProjection: ProjectionDefinition<OpenReservation, ReservationEvent> = {
  name: 'open-reservations',
  version: 1,
  handles: ['BalanceReserved', 'ReservationSettled', 'ReservationReleased'],
  documentIds: (event) => [event.data.reservationId],
  reduce: (_doc, event) =>
    match(event)
      .returnType<OpenReservation | undefined>()
      .with({ type: 'BalanceReserved' }, ({ data }) => ({
        address: data.address,
        winc: data.winc,
        dataItemId: data.dataItemId,
        timestamp: data.timestamp,
      }))
      .with({ type: 'ReservationSettled' }, { type: 'ReservationReleased' }, () => undefined)
      .exhaustive(),
};
