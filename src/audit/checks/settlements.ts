import type { AuditEvent, AuditSink } from '../types.js';

interface OpenReservation {
  itemId: string;
  winc: string;
  /** set once the item was accepted with this reservation: from then on it is owed */
  accepted?: { winc: string };
}

/**
 * Every item accepted with a payer is paid exactly once: its reservation on the payer's stream is
 * settled once, or still open (the reconciler settles it later), never released, never missing.
 *
 * In `$all` order a reservation precedes the acceptance, which precedes the settlement (the service
 * appends them in that order), so one pass keeps just the open reservations.
 */
export async function checkSettlements(events: AsyncIterable<AuditEvent>, sink: AuditSink): Promise<void> {
  const open = new Map<string, OpenReservation>();
  const key = (address: string, reservationId: string) => `${address} ${reservationId}`;

  for await (const { event } of events) {
    switch (event.type) {
      case 'BalanceReserved': {
        const { address, reservationId, dataItemId, winc } = event.data;
        open.set(key(address, reservationId), { itemId: dataItemId, winc });
        break;
      }
      case 'DataItemAccepted': {
        const { id, payer, reservationId, winc } = event.data;
        if (payer === undefined || reservationId === undefined) {
          if (payer !== undefined || reservationId !== undefined || winc !== '0') {
            sink.finding({
              kind: 'settlement-missing',
              id,
              detail: `charged ${winc} winc with payer ${payer ?? '(none)'} and reservation ${reservationId ?? '(none)'}`,
            });
          }
          break;
        }
        sink.count('paidItems');
        const reservation = open.get(key(payer, reservationId));
        if (!reservation) {
          sink.finding({ kind: 'settlement-missing', id, detail: `no open reservation ${reservationId} on ${payer} when the item was accepted` });
          break;
        }
        const differs = [
          reservation.itemId !== id ? `reserved for item ${reservation.itemId}` : '',
          reservation.winc !== winc ? `reserved ${reservation.winc} winc, accepted for ${winc}` : '',
        ].filter((d) => d !== '');
        if (differs.length > 0) sink.finding({ kind: 'settlement-mismatch', id, detail: `reservation ${reservationId} on ${payer}: ${differs.join('; ')}` });
        reservation.accepted = { winc };
        break;
      }
      case 'ReservationSettled': {
        const { address, reservationId, dataItemId, winc } = event.data;
        const reservation = open.get(key(address, reservationId));
        open.delete(key(address, reservationId));
        if (!reservation?.accepted) {
          const why = reservation ? 'before its item was accepted' : 'without an open reservation (settled twice?)';
          sink.finding({ kind: 'settlement-orphan', id: dataItemId, detail: `reservation ${reservationId} on ${address} settled ${why}` });
        } else if (reservation.accepted.winc !== winc) {
          sink.finding({
            kind: 'settlement-mismatch',
            id: dataItemId,
            detail: `reservation ${reservationId} on ${address} settled ${winc} winc, the item was accepted for ${reservation.accepted.winc}`,
          });
        }
        break;
      }
      case 'ReservationReleased': {
        const { address, reservationId, dataItemId, reason } = event.data;
        const reservation = open.get(key(address, reservationId));
        open.delete(key(address, reservationId));
        if (reservation?.accepted) {
          sink.finding({
            kind: 'settlement-missing',
            id: dataItemId,
            detail: `reservation ${reservationId} on ${address} released (${reason}) after the item was accepted with it`,
          });
        }
        break;
      }
      default:
        break;
    }
  }
  for (const reservation of open.values()) if (reservation.accepted) sink.count('awaitingSettlement');
}
