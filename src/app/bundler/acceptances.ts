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
