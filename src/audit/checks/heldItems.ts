import type { AuditEvent, AuditSink } from '../types.js';

/**
 * A held (quarantined) item is signed into no bundle while the hold stands (src/app/quarantine.ts): a
 * bundle prepared with a held item is a finding, unless the hold itself was then recorded as too late
 * for that very bundle (`DataItemReleased` with `refused` naming it: the signature won the race, the
 * operator was answered 409). Memory: the items held now, and the signatures awaiting that answer.
 */
export async function checkHeldItems(events: AsyncIterable<AuditEvent>, sink: AuditSink): Promise<void> {
  const held = new Set<string>();
  /** `<planId> <itemId>` of a bundle signed while the item was held, not yet excused */
  const signedWhileHeld = new Map<string, { id: string; planId: string }>();
  for await (const { event } of events) {
    switch (event.type) {
      case 'DataItemQuarantined':
        held.add(event.data.id);
        break;
      case 'DataItemReleased':
        held.delete(event.data.id);
        if (event.data.refused) signedWhileHeld.delete(`${event.data.refused.planId} ${event.data.id}`);
        break;
      case 'BundlePrepared':
        for (const id of event.data.itemIds) if (held.has(id)) signedWhileHeld.set(`${event.data.planId} ${id}`, { id, planId: event.data.planId });
        break;
      default:
        break;
    }
  }
  for (const { id, planId } of signedWhileHeld.values()) {
    sink.finding({ kind: 'held-item-signed', id, detail: `signed into bundle ${planId} while quarantined, and the hold never recorded as too late` });
  }
}
