import type { DomainEvent } from '../src/domain/events.js';
import type { NestedItem } from '../src/domain/dataItem/events.js';
import type { HandledEvent, ProjectionDefinition } from './definition.js';

/**
 * Where an item nested in an uploaded bundle sits in its root item (the top-level item that was
 * uploaded). `GET /tx/:id/offsets` adds the root's own offset in its bundle (CONTRACT.md section 6).
 */
export interface NestedOffsetsDocument {
  rootId: string;
  parentId: string;
  startOffsetInParentDataItemPayload: number;
  offsetInRootItem: number;
  rawContentLength: number;
  payloadDataStart: number;
  payloadContentType: string;
  depth: number;
  /** the item's signature was verified over these bytes (absent: recorded by an earlier version, which checked only its id) */
  verified?: true;
}

const handles = ['NestedItemsIndexed'] as const;
type NestedEvent = HandledEvent<typeof handles>;

// Each document looks its item up in the event: an index by id, built once per event, keeps that
// linear in the event's size. Weak, so it goes with the event.
const byId = new WeakMap<NestedEvent['data'], Map<string, NestedItem>>();
function itemOf(data: NestedEvent['data'], id: string): NestedItem | undefined {
  let index = byId.get(data);
  if (!index) {
    index = new Map();
    // a bundle may list one item twice: the first place is the one kept
    for (const item of data.items) if (!index.has(item.id)) index.set(item.id, item);
    byId.set(data, index);
  }
  return index.get(id);
}

export const nestedOffsetsProjection: ProjectionDefinition<NestedOffsetsDocument, NestedEvent> = {
  name: 'nested-offsets',
  version: 1,
  handles,
  documentIds: (event) => event.data.items.map((item) => item.id),
  reduce: (doc, event, { id }) => {
    // The same signed item nested in two uploads is the same bytes: the first root found keeps it.
    // An entry whose signature was not checked (recorded by an earlier version) may be anyone's
    // claim on the id: the first verified place replaces it, and nothing replaces a verified one.
    const verified = event.data.verified === true;
    if (doc && (doc.verified || !verified)) return doc;
    const item = itemOf(event.data, id);
    if (!item) return doc;
    // the header's fields (owner, tags, ...) are the GraphQL read model's, not this one's
    const { id: _id, owner: _o, signatureType: _s, tags: _t, target: _r, anchor: _a, ...place } = item;
    return { rootId: event.data.id, ...place, ...(verified ? { verified: true as const } : {}) };
  },
};
