import Arweave from 'arweave';
import type { ReadStore } from '../../ports/readStore.js';
import type { DataItemId } from '../../domain/ids.js';
import type { ItemDataQueries } from '../itemData.js';
import type { GraphqlItemDocument } from '../../../projections/graphqlItems.js';
import { COLLECTION, encodeCursor, findItems, type FoundItem, type TransactionFilter } from './find.js';
import { InvalidQuery } from './errors.js';
import { checkArguments, type GraphqlLimits } from './limits.js';

/** What a request's resolvers share: its time budget. */
export type GraphqlContext = {
  /** throws InvalidQuery once the request's time is up */
  checkTime(): void;
};

/**
 * A data item moves no value and pays no fee of its own: gateways answer zero for both (ar.io's
 * `resolveTxFee`/`resolveTxQuantity` with no fee or quantity), the AR figure as arweave-js writes it.
 */
const ZERO = { winston: '0', ar: Arweave.init({}).ar.winstonToAr('0') };
/** what ar.io's gateway answers for a signature or owner key it cannot read (resolvers.ts `NOT_FOUND`) */
const NOT_FOUND = '<not-found>';

type Header = Awaited<ReturnType<ItemDataQueries['header']>>;

/** The item's signature and owner key, read from its header in the blob store, once, and only when asked. */
function lazyHeader(itemData: ItemDataQueries, id: string): () => Promise<Header> {
  let header: Promise<Header> | undefined;
  return () =>
    (header ??= (async () => {
      const place = await itemData.itemPlace(id as DataItemId);
      return place && (await itemData.header(place));
    })());
}

/** as gateways derive it: the item's Content-Type tag, null without one (a document without tags: as recorded at acceptance) */
const contentTypeOf = (doc: GraphqlItemDocument): string | null =>
  doc.tags ? (doc.tags.find((t) => t.name.toLowerCase() === 'content-type')?.value ?? null) : doc.contentType;

/** a node of the schema's `Transaction`: plain values, and functions for what is read only when asked */
function nodeOf(itemData: ItemDataQueries, { id, doc }: { id: string; doc: GraphqlItemDocument }) {
  const header = lazyHeader(itemData, id);
  const bundledIn = doc.parentId ?? doc.bundleId;
  return {
    id,
    anchor: doc.anchor ?? '',
    signature: async () => (await header())?.signature ?? NOT_FOUND,
    signatureType: doc.signatureType ?? null,
    recipient: doc.target ?? '',
    owner: { address: doc.owner, key: async () => (await header())?.ownerPublicKey ?? NOT_FOUND },
    fee: ZERO,
    quantity: ZERO,
    data: { size: String(doc.dataSize), type: contentTypeOf(doc) },
    tags: doc.tags ?? [],
    block: blockOf(doc.block),
    bundledIn: bundledIn ? { id: bundledIn } : null,
    parent: bundledIn ? { id: bundledIn } : null,
  };
}

/**
 * The schema's `Block` (every field non-null) when all of it is known; null for a block the gateway named
 * no hash, time or parent for: a client never reads a made-up block (the item still sorts by its height).
 * A nested item's block is its root's (the read model brings it along).
 */
function blockOf(block: GraphqlItemDocument['block']) {
  if (!block || block.id === undefined || block.timestamp === undefined || block.previous === undefined) return null;
  return { id: block.id, timestamp: block.timestamp, height: block.height, previous: block.previous };
}

/** The root value of the gateway schema (schema.ts): its two queries over the GraphQL read model. */
export function gatewayRoot(deps: { readStore: Pick<ReadStore, 'get' | 'getMany' | 'findByKey'>; itemData: ItemDataQueries; limits: GraphqlLimits }) {
  const { readStore, itemData, limits } = deps;
  const nodesOf = (items: readonly FoundItem[]) => items.map((item) => ({ cursor: encodeCursor(item.sort), node: nodeOf(itemData, item) }));
  return {
    async transaction({ id }: { id: string }, context: GraphqlContext) {
      context.checkTime();
      const found = await readStore.get<GraphqlItemDocument>(COLLECTION, id);
      return found ? nodeOf(itemData, { id, doc: found.doc }) : null;
    },
    async transactions(args: TransactionFilter, context: GraphqlContext) {
      checkArguments(args, limits);
      const { items, hasNextPage } = await findItems(readStore, args, { maxExamined: limits.maxExamined, checkTime: () => context.checkTime() });
      context.checkTime();
      return { pageInfo: { hasNextPage }, edges: nodesOf(items) };
    },
  };
}

export { InvalidQuery };
