import { damageOf } from '../../domain/facts.js';
import type { AuditEvent, AuditSink } from '../types.js';

/**
 * Items whose stored bytes the bundler found damaged: each is a receipt the service cannot keep
 * until the same item is uploaded again, so every one not repaired by the end is a finding (the
 * operator restores its blob by a new upload of the item, from the client or a backup). And no plan
 * may hold an item while it is damaged: such a bundle would carry other bytes under its id.
 * Memory: the items damaged at the moment only.
 */
export async function checkDamagedItems(events: AsyncIterable<AuditEvent>, sink: AuditSink): Promise<void> {
  const damaged = new Map<string, string>();
  for await (const { event } of events) {
    switch (event.type) {
      case 'DataItemDamaged':
        damaged.set(event.data.id, `${damageOf(event.data)}, found ${new Date(event.data.timestamp).toISOString()}`);
        break;
      case 'DataItemRepaired':
        damaged.delete(event.data.id);
        break;
      case 'BundlePlanned':
        for (const { id } of event.data.items) {
          const found = damaged.get(id);
          if (found !== undefined) sink.finding({ kind: 'damaged-item-planned', id, detail: `planned in ${event.data.planId} while damaged (${found})` });
        }
        break;
      default:
        break;
    }
  }
  for (const [id, found] of damaged) {
    sink.finding({ kind: 'item-damaged', id, detail: `${found}; not repaired: never posted until the same item is uploaded again` });
  }
}
