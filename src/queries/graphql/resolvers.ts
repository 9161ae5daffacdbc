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

/** as gateways derive it: the item's Content-Type tag, null without one (a document without tags: as recorded at acceptance) */
const contentTypeOf = (doc: GraphqlItemDocument): string | null =>
  doc.tags ? (doc.tags.find((t) => t.name.toLowerCase() === 'content-type')?.value ?? null) : doc.contentType;

/**
 * A node of the schema's `Transaction` over its document. graphql-js's default resolver reads each
 * field a query selects as a property (a getter here) or calls it (a method): nothing is worked out
 * for a field not asked, and a node is one small object with no closures (a page is 100 of them;
 * graphql-js's own work per field is most of a page's cost).
 */
class TransactionNode {
  #header: Promise<Header> | undefined;

  constructor(
    readonly id: string,
    readonly doc: GraphqlItemDocument,
    private readonly itemData: ItemDataQueries,
  ) {}

  get anchor(): string {
    return this.doc.anchor ?? '';
  }
  async signature(): Promise<string> {
    return (await this.header())?.signature ?? NOT_FOUND;
  }
  get signatureType(): number | null {
    return this.doc.signatureType ?? null;
  }
  get recipient(): string {
    return this.doc.target ?? '';
  }
  get owner(): OwnerNode {
    return new OwnerNode(this);
  }
  get fee() {
    return ZERO;
  }
  get quantity() {
    return ZERO;
  }
  get data() {
    return { size: String(this.doc.dataSize), type: contentTypeOf(this.doc) };
  }
  get tags(): readonly { name: string; value: string }[] {
    return this.doc.tags ?? [];
  }
  get block() {
    return blockOf(this.doc.block);
  }
  get bundledIn(): { id: string } | null {
    const bundle = this.doc.parentId ?? this.doc.bundleId;
    return bundle ? { id: bundle } : null;
  }
  get parent(): { id: string } | null {
    return this.bundledIn;
  }

  /** the item's signature and owner key, read from its header in the blob store, once, and only when asked */
  header(): Promise<Header> {
    return (this.#header ??= (async () => {
      const place = await this.itemData.itemPlace(this.id as DataItemId);
      return place && (await this.itemData.header(place));
    })());
  }
}

/** the schema's `Owner`: the address recorded, the key read from the header when asked */
class OwnerNode {
  constructor(private readonly item: TransactionNode) {}
  get address(): string {
    return this.item.doc.owner;
  }
  async key(): Promise<string> {
    return (await this.item.header())?.ownerPublicKey ?? NOT_FOUND;
  }
}

/** the schema's `TransactionEdge`: its cursor encoded only when asked */
class EdgeNode {
  readonly node: TransactionNode;
  constructor(
    private readonly sort: string,
    node: TransactionNode,
  ) {
    this.node = node;
  }
  get cursor(): string {
    return encodeCursor(this.sort);
  }
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
  const nodesOf = (items: readonly FoundItem[]) => items.map((item) => new EdgeNode(item.sort, new TransactionNode(item.id, item.doc, itemData)));
  return {
    async transaction({ id }: { id: string }, context: GraphqlContext) {
      context.checkTime();
      const found = await readStore.get<GraphqlItemDocument>(COLLECTION, id);
      // held (quarantine), as the read routes' 451: not found while held
      return found && !found.doc.held ? new TransactionNode(id, found.doc, itemData) : null;
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
