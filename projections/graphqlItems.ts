import { createHash } from 'node:crypto';
import type { DocumentIndex } from '../src/ports/readStore.js';
import type { MinedBlock } from '../src/domain/bundle/events.js';
import type { NestedItem } from '../src/domain/dataItem/events.js';
import type { HandledEvent, ProjectionDefinition } from './definition.js';

/**
 * Every accepted item, nested ones included, as the gateway GraphQL schema shows it (docs/graphql.md),
 * from its receipt on. Small: the large fields (signature, owner key) are read from the item's header
 * in the blob store when a query asks for them.
 * Events recorded before tags, target and anchor were (DataItemAccepted, NestedItem; 2026-11-29) lack
 * them, and a rebuild cannot add them: such a top-level item is found by id, owner and bundle only, with
 * no tags, target or anchor; such a nested item (its owner not recorded either) is not found at all.
 */
export interface GraphqlItemDocument {
  /** base64url(sha256(owner public key)): the address gateways give every signature type */
  owner: string;
  signatureType?: number;
  target?: string;
  anchor?: string;
  /** absent: recorded before tags were */
  tags?: { name: string; value: string }[];
  /** payload bytes */
  dataSize: number;
  contentType: string;
  /** acceptance time (ms) */
  timestamp: number;
  /** the position of the event that recorded it (decimal): the order among items of one height, newest last */
  seq: string;
  /** nested: the item whose bundle holds it, the uploaded item it is in, and where its bytes start there */
  parentId?: string;
  rootId?: string;
  offsetInRootItem?: number;
  /** top-level, once its bundle is permanent: the bundle transaction */
  bundleId?: string;
  /**
   * once its bundle is permanent: its block; a nested item's is its root's (as gateways sort and filter
   * it), brought along when the root is mined (`followers` below)
   */
  block?: { height: number } & Partial<MinedBlock>;
  /** top-level: it holds nested items (indexed), which follow its block */
  holdsNested?: true;
  /**
   * held by the operator (DataItemQuarantined, not released since), or nested in a root held: answered
   * by no query (as the read routes answer 451) and under no filter's key, so held items cost a search
   * nothing. A nested item takes its root's (`followers` below), as it takes its block.
   */
  held?: true;
}

const handles = ['DataItemAccepted', 'NestedItemsIndexed', 'BundlePermanent', 'DataItemQuarantined', 'DataItemReleased'] as const;
type GraphqlEvent = HandledEvent<typeof handles>;

/**
 * Sort key: height first (pending after every height, so first under HEIGHT_DESC as gateways order),
 * then the position of the event that recorded the item (acceptance order, unique but for the items
 * of one nested index), then the id.
 */
const HEIGHT_DIGITS = 12;
const POSITION_DIGITS = 20;
export const PENDING = 'p';
export const heightPrefix = (height: number): string => String(height).padStart(HEIGHT_DIGITS, '0');
export const sortKeyOf = (doc: Pick<GraphqlItemDocument, 'block' | 'seq'>, id: string): string =>
  `${doc.block ? heightPrefix(doc.block.height) : PENDING}:${doc.seq.padStart(POSITION_DIGITS, '0')}:${id}`;

/** a tag key of at most this many characters is kept as it is, a longer one as its sha256 (index entries stay small) */
const LONG_KEY = 256;
const bounded = (key: string): string => (key.length <= LONG_KEY ? key : `#${createHash('sha256').update(key).digest('base64url')}`);

/** The index keys a query names (src/queries/graphql/plan.ts) and a document carries: one spelling for both. */
export const itemKeys = {
  all: 'all',
  owner: (address: string) => `owner:${address}`,
  recipient: (address: string) => `recipient:${address}`,
  tag: (name: string, value: string) => `tag:${bounded(`${name}\u0000${value}`)}`,
  bundledIn: (id: string) => `bundle:${id}`,
  /** not a filter: the nested items of an uploaded item, found when it is mined */
  root: (id: string) => `root:${id}`,
};

const bundledInOf = (doc: GraphqlItemDocument): string | undefined => doc.parentId ?? doc.bundleId;

function indexOf(doc: GraphqlItemDocument, id: string): DocumentIndex {
  // held: found by no filter, only by its root (which brings it back when released)
  if (doc.held) return { keys: doc.rootId !== undefined ? [itemKeys.root(doc.rootId)] : [], sort: sortKeyOf(doc, id) };
  const keys = [itemKeys.all, itemKeys.owner(doc.owner)];
  if (doc.target) keys.push(itemKeys.recipient(doc.target));
  const bundle = bundledInOf(doc);
  if (bundle) keys.push(itemKeys.bundledIn(bundle));
  if (doc.rootId !== undefined) keys.push(itemKeys.root(doc.rootId));
  for (const { name, value } of doc.tags ?? []) keys.push(itemKeys.tag(name, value));
  return { keys, sort: sortKeyOf(doc, id) };
}

// as nestedOffsets.ts: each document looks its item up in the event through an index built once per event
const byId = new WeakMap<object, Map<string, NestedItem>>();
function nestedItemOf(data: { items: NestedItem[] }, id: string): NestedItem | undefined {
  let index = byId.get(data);
  if (!index) {
    index = new Map();
    for (const item of data.items) if (!index.has(item.id)) index.set(item.id, item);
    byId.set(data, index);
  }
  return index.get(id);
}

const headerOf = (h: { tags?: GraphqlItemDocument['tags']; target?: string; anchor?: string }) => ({
  ...(h.tags ? { tags: h.tags } : {}),
  ...(h.target !== undefined ? { target: h.target } : {}),
  ...(h.anchor !== undefined ? { anchor: h.anchor } : {}),
});

/** a nested item takes its root's block and hold, or loses those it had */
function followRoot(doc: GraphqlItemDocument, root: GraphqlItemDocument | undefined): GraphqlItemDocument {
  const { block: _, held: _held, ...rest } = doc;
  return { ...rest, ...(root?.block ? { block: root.block } : {}), ...(root?.held ? { held: true as const } : {}) };
}

/** the hold is a flag beside the item: only an uploaded item's own (a nested one follows its root's) */
function holdOf(doc: GraphqlItemDocument | undefined, held: boolean): GraphqlItemDocument | undefined {
  if (!doc || doc.parentId !== undefined) return doc;
  if (held) return doc.held ? doc : { ...doc, held: true };
  const { held: _, ...released } = doc;
  return released;
}

/**
 * Version 2: nested items carry their root's block (and sort by it), and a `root:` key. A nested index
 * names its root first, so a root mined before its nested items are indexed gives them its block too.
 * Version 3: held items (quarantine) and the items nested in them carry `held` and no filter key.
 */
export const graphqlItemsProjection: ProjectionDefinition<GraphqlItemDocument, GraphqlEvent> = {
  name: 'graphql-items',
  version: 3,
  handles,
  documentIds: (event) =>
    event.type === 'NestedItemsIndexed'
      ? [event.data.id, ...event.data.items.map((i) => i.id)]
      : event.type === 'BundlePermanent'
        ? event.data.itemIds
        : [event.data.id],
  reduce: (doc, event, { id, recorded }) => {
    switch (event.type) {
      case 'DataItemAccepted': {
        // uploaded on its own too: its own acceptance (and bundle) is what it is found by
        if (doc && doc.parentId === undefined) return doc;
        const { data } = event;
        return {
          owner: data.owner,
          signatureType: data.signatureType,
          ...headerOf(data),
          dataSize: data.rawContentLength - data.payloadDataStart,
          contentType: data.payloadContentType,
          timestamp: data.timestamp,
          seq: String(recorded.position),
        };
      }
      case 'NestedItemsIndexed': {
        if (id === event.data.id) return doc && event.data.items.length > 0 && !doc.holdsNested ? { ...doc, holdsNested: true } : doc;
        // the first place found keeps it (as nested-offsets), and an upload of its own comes first
        if (doc) return doc;
        const item = nestedItemOf(event.data, id);
        if (!item?.owner) return doc;
        return {
          owner: item.owner,
          ...(item.signatureType !== undefined ? { signatureType: item.signatureType } : {}),
          ...headerOf(item),
          dataSize: item.rawContentLength - item.payloadDataStart,
          contentType: item.payloadContentType,
          timestamp: event.data.timestamp,
          seq: String(recorded.position),
          parentId: item.parentId,
          rootId: event.data.id,
          offsetInRootItem: item.offsetInRootItem,
        };
      }
      case 'BundlePermanent': {
        if (!doc || doc.parentId !== undefined) return doc;
        const { data } = event;
        return { ...doc, bundleId: data.txId, block: { height: data.blockHeight, ...data.block } };
      }
      case 'DataItemQuarantined':
        return holdOf(doc, true);
      case 'DataItemReleased':
        return holdOf(doc, false);
    }
  },
  indexOf,
  followers: {
    leaderOf: (doc) => doc.rootId,
    keyOf: itemKeys.root,
    // mined, held or released: every nested item takes the block and hold; indexed after: the part's items
    after: (event, _, root) => {
      if (!root?.holdsNested) return 'none';
      if (event.type === 'NestedItemsIndexed') return root.block || root.held ? 'named' : 'none';
      return event.type === 'DataItemAccepted' ? 'none' : 'all';
    },
    follow: (doc, root) => followRoot(doc, root),
  },
};
