import type { AccountEvent } from '../src/domain/account/events.js';
import type { HandledEvent, ProjectionDefinition } from './definition.js';

/** Reservations neither settled nor released: what the reconciler looks at. */
export interface OpenReservation {
  address: string;
  winc: string;
  dataItemId: string;
  timestamp: number;
}

const handles = ['BalanceReserved', 'ReservationSettled', 'ReservationReleased'] as const;
type ReservationEvent = HandledEvent<typeof handles>;

export const openReservationsProjection: ProjectionDefinition<OpenReservation, ReservationEvent> = {
  name: 'open-reservations',
  version: 1,
  handles,
  documentIds: (event) => [event.data.reservationId],
  // a switch (exhaustive: the return type and the linter's check), not a ts-pattern match: a rebuild asks it of every reservation
  reduce: (_doc, event): OpenReservation | undefined => {
    switch (event.type) {
      case 'BalanceReserved': {
        const { data } = event;
        return { address: data.address, winc: data.winc, dataItemId: data.dataItemId, timestamp: data.timestamp };
      }
      case 'ReservationSettled':
      case 'ReservationReleased':
        return undefined;
    }
  },
};
