import { fromRecorded } from '../../domain/events.js';
import { dataItemStream, type DataItemId } from '../../domain/ids.js';
import type { EventStore } from '../../ports/eventStore.js';

/** streams read at once: a 10000-item bundle is 10000 short reads */
const AT_ONCE = 64;

/**
 * The sha256 each item was accepted with, from its own stream (`DataItemAccepted` opens it): what
 * its blob must still hash to when a bundle is made of it. The bundle's plan does not carry them (a
 * plan of 10000 items would outgrow an event), and read models may lag or be rebuilt.
 */
export async function acceptedDigests(eventStore: Pick<EventStore, 'readStream'>, ids: readonly string[]): Promise<Map<string, string>> {
  const digests = new Map<string, string>();
  for (let i = 0; i < ids.length; i += AT_ONCE) {
    await Promise.all(
      ids.slice(i, i + AT_ONCE).map(async (id) => {
        for await (const recorded of eventStore.readStream(dataItemStream(id as DataItemId), { maxCount: 1 })) {
          const event = fromRecorded(recorded);
          if (event?.type === 'DataItemAccepted') digests.set(id, event.data.sha256);
        }
      }),
    );
  }
  const unknown = ids.filter((id) => !digests.has(id));
  if (unknown.length > 0) throw new Error(`bundle items never accepted: ${unknown.slice(0, 5).join(', ')}${unknown.length > 5 ? ', ...' : ''}`);
  return digests;
}

const HOLDS: ReadonlySet<string> = new Set(['DataItemQuarantined', 'DataItemReleased']);

/**
 * The items held (quarantined) now, from their own streams: a bundle holding one is never signed
 * (src/app/quarantine.ts says why the streams, not the read models). Only the holds and releases
 * are parsed; an item's other events are passed over by type.
 */
export async function heldItems(eventStore: Pick<EventStore, 'readStream'>, ids: readonly string[]): Promise<string[]> {
  const held: string[] = [];
  for (let i = 0; i < ids.length; i += AT_ONCE) {
    await Promise.all(
      ids.slice(i, i + AT_ONCE).map(async (id) => {
        let holds = false;
        for await (const recorded of eventStore.readStream(dataItemStream(id as DataItemId))) {
          if (HOLDS.has(recorded.type)) holds = recorded.type === 'DataItemQuarantined';
        }
        if (holds) held.push(id);
      }),
    );
  }
  return held;
}
