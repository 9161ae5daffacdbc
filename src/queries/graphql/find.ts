import type { ReadStore } from '../../ports/readStore.js';
import { collectionOf } from '../../../projections/definition.js';
import { graphqlItemsProjection, heightPrefix, itemKeys, sortKeyOf, type GraphqlItemDocument } from '../../../projections/graphqlItems.js';
import { InvalidQuery } from './errors.js';

/** `transactions(...)`'s arguments, checked against the limits (limits.ts) before they get here. */
export interface TransactionFilter {
  ids?: readonly string[];
  owners?: readonly string[];
  recipients?: readonly string[];
  tags?: readonly { name: string; values: readonly string[] }[];
  bundledIn?: readonly string[];
  block?: { min?: number | null; max?: number | null } | null;
  first: number;
  after?: string | null;
  sort: 'HEIGHT_ASC' | 'HEIGHT_DESC';
}

export interface FoundItem {
  id: string;
  /** the item's place in the order: its cursor, base64url-encoded */
  sort: string;
  doc: GraphqlItemDocument;
}

export interface SearchBudget {
  /** documents read and checked against the filters, at most: past it the query is refused as too broad */
  maxExamined: number;
  /** throws once the query's time is up (checked between reads) */
  checkTime(): void;
}

export const COLLECTION = collectionOf(graphqlItemsProjection);
/** documents read per key and read: a page and the one that says whether another follows */
const pageOf = (first: number) => first + 1;

const CURSOR = /^(?:p|\d{12}):\d{20}:[A-Za-z0-9_-]{1,64}$/;
export const encodeCursor = (sort: string): string => Buffer.from(sort, 'utf8').toString('base64url');
function decodeCursor(cursor: string): string {
  const sort = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!CURSOR.test(sort)) throw new InvalidQuery(`cursor ${JSON.stringify(cursor.slice(0, 100))} is not one this service gave`);
  return sort;
}

/**
 * Where the scan runs in sort-key space, both ends exclusive: the block range (mined items only:
 * heights are 12 digits, pending items `p:…` sort above every one) and the cursor.
 */
function rangeOf(filter: TransactionFilter): { low?: string; high?: string } {
  const range: { low?: string; high?: string } = {};
  const min = filter.block?.min ?? undefined;
  const max = filter.block?.max ?? undefined;
  if (filter.block && (min !== undefined || max !== undefined)) {
    // ';' follows ':' : every key of height h is below `heightPrefix(h) + ';'`
    if (min !== undefined && min > 0) range.low = `${heightPrefix(min - 1)};`;
    range.high = max !== undefined ? `${heightPrefix(Math.max(max, -1) + 1)}` : 'p';
  }
  if (filter.after) {
    const at = decodeCursor(filter.after);
    if (filter.sort === 'HEIGHT_DESC') range.high = range.high === undefined || at < range.high ? at : range.high;
    else range.low = range.low === undefined || at > range.low ? at : range.low;
  }
  return range;
}

/**
 * the filters as one predicate over a document (the scanned key's filter included: cheap, and simpler).
 * A held item matches none: it is under no filter's key, but `ids` reads documents by id.
 */
function matcher(filter: TransactionFilter): (id: string, doc: GraphqlItemDocument) => boolean {
  const ids = filter.ids && new Set(filter.ids);
  const owners = filter.owners && new Set(filter.owners);
  const recipients = filter.recipients && new Set(filter.recipients);
  const bundles = filter.bundledIn && new Set(filter.bundledIn);
  const tags = filter.tags?.map(({ name, values }) => ({ name, values: new Set(values) }));
  return (id, doc) =>
    !doc.held &&
    (!ids || ids.has(id)) &&
    (!owners || owners.has(doc.owner)) &&
    (!recipients || (doc.target !== undefined && recipients.has(doc.target))) &&
    (!bundles || bundles.has(doc.parentId ?? doc.bundleId ?? '')) &&
    (!tags || tags.every(({ name, values }) => (doc.tags ?? []).some((t) => t.name === name && values.has(t.value))));
}

/**
 * The keys whose documents hold every answer: one filter's, as a union. The filter expected to be the
 * most selective is scanned (a bundle's items, then a tag's fewest values, then owners, then
 * recipients), the others are checked on the documents read; with none, every item in order.
 */
function drivingKeys(filter: TransactionFilter): string[] {
  if (filter.bundledIn?.length) return filter.bundledIn.map(itemKeys.bundledIn);
  if (filter.tags?.length) {
    const narrowest = [...filter.tags].sort((a, b) => a.values.length - b.values.length)[0]!;
    return narrowest.values.map((v) => itemKeys.tag(narrowest.name, v));
  }
  if (filter.owners?.length) return filter.owners.map(itemKeys.owner);
  if (filter.recipients?.length) return filter.recipients.map(itemKeys.recipient);
  return [itemKeys.all];
}

/** One key's documents in order, read a page at a time as the merge needs them. */
class KeyStream {
  #buffer: readonly FoundItem[] = [];
  /** the buffer's head: taking one moves it, rather than shifting the page down */
  #at = 0;
  #done = false;
  #after: string | undefined;

  constructor(
    private readonly store: Pick<ReadStore, 'findByKey'>,
    private readonly key: string,
    private readonly range: { low?: string; high?: string },
    private readonly descending: boolean,
    private readonly pageSize: number,
  ) {
    this.#after = descending ? range.high : range.low;
  }

  async head(): Promise<FoundItem | undefined> {
    if (this.#at === this.#buffer.length && !this.#done) {
      const before = this.descending ? this.range.low : this.range.high;
      const page = await this.store.findByKey<GraphqlItemDocument>(COLLECTION, this.key, {
        limit: this.pageSize,
        descending: this.descending,
        ...(this.#after !== undefined ? { after: this.#after } : {}),
        ...(before !== undefined ? { before } : {}),
      });
      this.#buffer = page;
      this.#at = 0;
      if (page.length < this.pageSize) this.#done = true;
      if (page.length > 0) this.#after = page[page.length - 1]!.sort;
    }
    return this.#buffer[this.#at];
  }

  take(): void {
    this.#at++;
  }
}

/**
 * The first `filter.first` items matching `filter` in its order, after its cursor, and whether more
 * follow. Reads the driving keys' index in order (a k-way merge when a filter names several values),
 * so a page costs index reads in proportion to what it skips, bounded by `budget`.
 */
export async function findItems(store: Pick<ReadStore, 'findByKey' | 'getMany'>, filter: TransactionFilter, budget: SearchBudget) {
  const range = rangeOf(filter);
  const matches = matcher(filter);
  const descending = filter.sort === 'HEIGHT_DESC';
  const inRange = (sort: string) => (range.low === undefined || sort > range.low) && (range.high === undefined || sort < range.high);
  const before = (a: string, b: string) => (descending ? a > b : a < b);
  if (filter.ids?.length) {
    const found = await store.getMany<GraphqlItemDocument>(COLLECTION, filter.ids);
    const items = [...found]
      .map(([id, { doc }]) => ({ id, sort: sortKeyOf(doc, id), doc }))
      .filter((item) => inRange(item.sort) && matches(item.id, item.doc))
      .sort((a, b) => (before(a.sort, b.sort) ? -1 : 1));
    return { items: items.slice(0, filter.first), hasNextPage: items.length > filter.first };
  }
  const streams = drivingKeys(filter).map((key) => new KeyStream(store, key, range, descending, pageOf(filter.first)));
  const items: FoundItem[] = [];
  let examined = 0;
  let last: string | undefined;
  for (;;) {
    let best: KeyStream | undefined;
    let bestItem: FoundItem | undefined;
    for (const stream of streams) {
      const item = await stream.head();
      budget.checkTime();
      if (item && (!bestItem || before(item.sort, bestItem.sort))) [best, bestItem] = [stream, item];
    }
    if (!best || !bestItem) return { items, hasNextPage: false };
    best.take();
    // the same document under two of the keys (two values of one tag): once
    if (bestItem.sort === last) continue;
    last = bestItem.sort;
    if (!matches(bestItem.id, bestItem.doc)) {
      if (++examined > budget.maxExamined) throw new InvalidQuery(`the query examined over ${budget.maxExamined} items: narrow its filters`);
      continue;
    }
    if (items.length === filter.first) return { items, hasNextPage: true };
    items.push(bestItem);
  }
}
