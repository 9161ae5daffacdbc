import { createLru } from '../../lru.js';
import type { VerifiedDataItem } from '../../verify/index.js';
import { opticalHeaderOf, type ItemPlace, type OpticalHeader } from './opticalHeader.js';

/**
 * The headers of items this process accepts, handed to the optical bridge running here: the header
 * verified on the way in is the one stored (its bytes are committed before the acceptance is
 * appended), so the bridge posts it without reading it back from the blob store and parsing it again.
 * The bridge asks only for items whose acceptance it read, so one whose append failed is never given.
 * At most `max` are kept: one the bridge has not come to when `max` newer ones arrived is read from
 * the blob store, as are nested items and those accepted by another process or before a restart.
 * Each is given once.
 */
export interface AcceptedHeaders {
  /** an item whose acceptance is about to be appended here */
  accepted(item: VerifiedDataItem): void;
  /** the header of the uploaded item at `place` if it was accepted here and not taken yet; forgotten once taken */
  take(place: ItemPlace): OpticalHeader | undefined;
  readonly size: number;
}

export function createAcceptedHeaders(max: number): AcceptedHeaders {
  const items = createLru<string, VerifiedDataItem>(max);
  return {
    accepted: (item) => items.set(item.id, item),
    take(place) {
      const item = items.get(place.id);
      if (!item) return undefined;
      items.delete(place.id);
      // the item's own blob from its first byte, as its acceptance recorded it; anything else is read
      const same = place.start === 0 && item.rawContentLength === place.rawContentLength && item.payloadDataStart === place.payloadDataStart;
      return same ? opticalHeaderOf(item, item.payloadContentLength) : undefined;
    },
    get size() {
      return items.size;
    },
  };
}
