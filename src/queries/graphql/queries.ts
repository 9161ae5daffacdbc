import { GraphQLError, parse, validate, type DocumentNode, type GraphQLSchema } from 'graphql';
import { createLru } from '../../lru.js';
import type { ReadStore } from '../../ports/readStore.js';
import type { ItemDataQueries } from '../itemData.js';
import { InvalidQuery } from './errors.js';
import { checkDocument, DEFAULT_GRAPHQL_LIMITS, type GraphqlLimits } from './limits.js';
import { gatewayRoot, type GraphqlContext } from './resolvers.js';
import { gatewaySchema } from './schema.js';

/** What the GraphQL route runs (src/http/graphql.ts): the schema, its root value, and the bounded parse. */
export interface GraphqlQueries {
  schema: GraphQLSchema;
  rootValue: ReturnType<typeof gatewayRoot>;
  limits: GraphqlLimits;
  /** the query text as a document, refused (GraphQLError) past the text, token, depth or field limits */
  parse(source: string): DocumentNode;
  /** graphql-js `validate`, its verdict kept with a document `parse` kept */
  validate: typeof validate;
  /** a request's context: its time budget starts now (`monotonic`: ms, a monotonic clock) */
  context(monotonic: () => number): GraphqlContext;
}

/**
 * Apps send the same few queries again and again, their filters in variables (ar-gql, aoconnect):
 * each text's document is parsed, checked and validated once while it is among the most recent.
 * Only short texts are kept, so the cache holds a few MiB at most, whatever clients send.
 */
const CACHED_DOCUMENTS = 100;
const CACHED_TEXT_MAX = 2048;

export function createGraphqlQueries(deps: {
  readStore: Pick<ReadStore, 'get' | 'getMany' | 'findByKey'>;
  itemData: ItemDataQueries;
  limits?: Partial<GraphqlLimits>;
}): GraphqlQueries {
  const limits = { ...DEFAULT_GRAPHQL_LIMITS, ...deps.limits };
  const documents = createLru<string, DocumentNode>(CACHED_DOCUMENTS);
  const verdicts = new WeakMap<DocumentNode, ReturnType<typeof validate>>();
  return {
    schema: gatewaySchema(),
    rootValue: gatewayRoot({ readStore: deps.readStore, itemData: deps.itemData, limits }),
    limits,
    parse(source) {
      const cached = source.length <= CACHED_TEXT_MAX ? documents.get(source) : undefined;
      if (cached) return cached;
      if (source.length > limits.maxQueryLength)
        throw new GraphQLError(`the query is ${source.length} characters long, over the maximum of ${limits.maxQueryLength}`);
      // graphql-js stops at maxTokens with a GraphQLError of its own
      const document = parse(source, { maxTokens: limits.maxTokens });
      try {
        checkDocument(document, limits);
      } catch (error) {
        if (error instanceof InvalidQuery) throw new GraphQLError(error.message);
        throw error;
      }
      if (source.length <= CACHED_TEXT_MAX) documents.set(source, document);
      return document;
    },
    validate(schema, document, rules, options, typeInfo) {
      // the same schema and rules for every request of this route: the verdict is the document's
      const known = verdicts.get(document);
      if (known) return known;
      const verdict = validate(schema, document, rules, options, typeInfo);
      verdicts.set(document, verdict);
      return verdict;
    },
    context(monotonic) {
      const deadline = monotonic() + limits.timeBudgetMs;
      return {
        checkTime() {
          if (monotonic() > deadline) throw new InvalidQuery(`the query took over ${limits.timeBudgetMs} ms: narrow it`);
        },
      };
    },
  };
}
