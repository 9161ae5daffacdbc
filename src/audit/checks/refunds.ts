import { dataItemStream, type DataItemId } from '../../domain/ids.js';
import type { EventStore } from '../../ports/eventStore.js';
import { parseRecorded } from '../parse.js';
import type { AuditEvent, AuditSink } from '../types.js';

export interface RefundDeps {
  eventStore: Pick<EventStore, 'readStream'>;
}

/** what an item was charged: its acceptance's payer, winc and reservation (absent: free) */
interface Charge {
  payer: string;
  winc: string;
  reservationId: string;
}

/**
 * Every refund gives back one FAILED item's charge: to the account charged, the charge's exact winc
 * and reservation, while the item is FAILED (for the failure the refund names), and once per failure;
 * no refunded charge stands unpaid when the item becomes permanent (a requeue charges it again first).
 *
 * Memory: the items that ever failed or were refunded (few); an item's charge is read from its own
 * stream when a refund names it.
 */
export async function checkRefunds(events: AsyncIterable<AuditEvent>, deps: RefundDeps, sink: AuditSink): Promise<void> {
  /** failures so far, of items that failed */
  const failures = new Map<string, number>();
  const failedNow = new Set<string>();
  /** `<item> <failure>` of every refund */
  const refunded = new Set<string>();
  /** items whose last refund was not charged again yet */
  const owed = new Map<string, string>();
  for await (const { event } of events) {
    switch (event.type) {
      case 'DataItemFailed':
        failures.set(event.data.id, (failures.get(event.data.id) ?? 0) + 1);
        failedNow.add(event.data.id);
        break;
      case 'DataItemRequeued':
        failedNow.delete(event.data.id);
        break;
      case 'ChargeRefunded': {
        const { dataItemId: id, failure } = event.data;
        sink.count('refunds');
        const key = `${id} ${failure}`;
        if (refunded.has(key))
          sink.finding({ kind: 'refund-twice', id, detail: `failure ${failure} refunded again to ${event.data.address} (${event.data.winc} winc)` });
        refunded.add(key);
        owed.set(id, event.data.address);
        const charge = await chargeOf(deps.eventStore, id);
        for (const detail of refundDifferences(event.data, charge, failedNow.has(id), failures.get(id) ?? 0))
          sink.finding({ kind: 'refund-mismatch', id, detail });
        break;
      }
      case 'ItemRecharged':
        owed.delete(event.data.dataItemId);
        break;
      case 'BundlePermanent':
        for (const id of event.data.itemIds) {
          const to = owed.get(id);
          if (to !== undefined)
            sink.finding({ kind: 'refund-permanent', id, detail: `permanent in ${event.data.planId} with its charge refunded to ${to} and not charged again` });
        }
        break;
      default:
        break;
    }
  }
}

/** what the refund gets wrong, one phrase each (empty: it gives back the failed item's charge) */
function refundDifferences(
  refund: { address: string; winc: string; reservationId: string; failure: number },
  charge: Charge | undefined,
  failed: boolean,
  failures: number,
): string[] {
  const out: string[] = [];
  if (!failed) out.push(`refunded ${refund.winc} winc to ${refund.address} while the item was not FAILED (permanent, pending or never failed)`);
  else if (refund.failure !== failures) out.push(`refund names failure ${refund.failure}; the item had failed ${failures} times`);
  if (!charge) {
    out.push(`refunded ${refund.winc} winc to ${refund.address}, but the item was never charged`);
    return out;
  }
  if (refund.address !== charge.payer) out.push(`refunded to ${refund.address}, charged to ${charge.payer}`);
  if (refund.winc !== charge.winc) out.push(`refunded ${refund.winc} winc, charged ${charge.winc}`);
  if (refund.reservationId !== charge.reservationId) out.push(`refund names reservation ${refund.reservationId}, charged by ${charge.reservationId}`);
  return out;
}

async function chargeOf(eventStore: RefundDeps['eventStore'], id: string): Promise<Charge | undefined> {
  for await (const recorded of eventStore.readStream(dataItemStream(id as DataItemId))) {
    const { event } = parseRecorded(recorded);
    if (event?.type !== 'DataItemAccepted') return undefined;
    const { payer, winc, reservationId } = event.data;
    return payer !== undefined && reservationId !== undefined && winc !== '0' ? { payer, winc, reservationId } : undefined;
  }
  return undefined;
}
