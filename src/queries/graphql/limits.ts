import { Kind, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';
import { InvalidQuery } from './errors.js';
import type { TransactionFilter } from './find.js';

/**
 * What one GraphQL request may ask (docs/graphql.md): every query this service answers costs a bounded
 * number of reads and a bounded time, and a larger one is refused with a GraphQL error saying which
 * limit it passed.
 */
export interface GraphqlLimits {
  /** bytes of a request body (query and variables) */
  maxBodyBytes: number;
  /** characters of the query text */
  maxQueryLength: number;
  /** tokens the parser reads before it gives up (graphql-js `maxTokens`) */
  maxTokens: number;
  /** nesting of selections, fragments expanded (the standard introspection query needs 13) */
  maxDepth: number;
  /** fields selected, fragments expanded and aliases counted apart */
  maxFields: number;
  /** `transaction`/`transactions` fields at the top (each one a search) */
  maxRootFields: number;
  /** `first` at most (gateways: 100) */
  maxFirst: number;
  /** entries of `ids`, `owners`, `recipients`, `bundledIn`, and values of one tag filter */
  maxListLength: number;
  /** tag filters of one query */
  maxTagFilters: number;
  /** documents a search may read and find not matching before it is refused as too broad */
  maxExamined: number;
  /** time of one request (ms), checked between reads */
  timeBudgetMs: number;
  /** requests of one client at once; more are answered 429 */
  maxConcurrentPerClient: number;
}

export const DEFAULT_GRAPHQL_LIMITS: GraphqlLimits = {
  maxBodyBytes: 64 * 1024,
  maxQueryLength: 16 * 1024,
  maxTokens: 4000,
  maxDepth: 15,
  maxFields: 500,
  maxRootFields: 10,
  maxFirst: 100,
  maxListLength: 100,
  maxTagFilters: 10,
  maxExamined: 10_000,
  timeBudgetMs: 10_000,
  maxConcurrentPerClient: 4,
};

/** `transactions(...)`'s arguments within the limits, variables included (they are known only here) */
export function checkArguments(args: TransactionFilter, limits: GraphqlLimits): void {
  if (!Number.isSafeInteger(args.first) || args.first < 0) throw new InvalidQuery(`first must be a whole number from 0 to ${limits.maxFirst}`);
  if (args.first > limits.maxFirst) throw new InvalidQuery(`first is ${args.first}, over the maximum of ${limits.maxFirst}`);
  for (const name of ['ids', 'owners', 'recipients', 'bundledIn'] as const) {
    const list = args[name];
    if (list && list.length > limits.maxListLength) throw new InvalidQuery(`${name} has ${list.length} entries, over the maximum of ${limits.maxListLength}`);
  }
  const tags = args.tags ?? [];
  if (tags.length > limits.maxTagFilters) throw new InvalidQuery(`tags has ${tags.length} filters, over the maximum of ${limits.maxTagFilters}`);
  for (const tag of tags) {
    if (tag.values.length > limits.maxListLength)
      throw new InvalidQuery(`tag ${JSON.stringify(tag.name.slice(0, 100))} has ${tag.values.length} values, over the maximum of ${limits.maxListLength}`);
  }
}

/**
 * The document's depth and field count within the limits, fragments expanded: a walk that stops as
 * soon as a limit is passed, so fragments spread into each other (exponential when expanded) cost no
 * more than the limit, and one spread inside itself (a cycle, which the validation reports) is not followed.
 */
export function checkDocument(document: DocumentNode, limits: GraphqlLimits): void {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  let fields = 0;
  /** the fragments being expanded: a spread of one of them is a cycle, which the validation reports */
  const expanding = new Set<string>();
  const walk = (set: SelectionSetNode, depth: number): void => {
    if (depth > limits.maxDepth) throw new InvalidQuery(`the query nests deeper than ${limits.maxDepth} levels`);
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        if (++fields > limits.maxFields) throw new InvalidQuery(`the query selects over ${limits.maxFields} fields`);
        if (selection.selectionSet) walk(selection.selectionSet, depth + 1);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        walk(selection.selectionSet, depth);
      } else {
        const name = selection.name.value;
        const fragment = fragments.get(name);
        // an unknown fragment is the validation's to report
        if (!fragment || expanding.has(name)) continue;
        expanding.add(name);
        walk(fragment.selectionSet, depth);
        expanding.delete(name);
      }
    }
  };
  for (const d of document.definitions) {
    if (d.kind !== Kind.OPERATION_DEFINITION) continue;
    const roots = d.selectionSet.selections.filter((s) => s.kind === Kind.FIELD && !s.name.value.startsWith('__')).length;
    if (roots > limits.maxRootFields) throw new InvalidQuery(`the query asks ${roots} searches at once, over the maximum of ${limits.maxRootFields}`);
    walk(d.selectionSet, 1);
  }
}
