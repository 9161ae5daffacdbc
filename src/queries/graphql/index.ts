import { GraphQLError, parse, type DocumentNode, type GraphQLSchema } from 'graphql';
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
  /** a request's context: its time budget starts now (`monotonic`: ms, a monotonic clock) */
  context(monotonic: () => number): GraphqlContext;
}

export function createGraphqlQueries(deps: {
  readStore: Pick<ReadStore, 'get' | 'getMany' | 'findByKey'>;
  itemData: ItemDataQueries;
  limits?: Partial<GraphqlLimits>;
}): GraphqlQueries {
  const limits = { ...DEFAULT_GRAPHQL_LIMITS, ...deps.limits };
  return {
    schema: gatewaySchema(),
    rootValue: gatewayRoot({ readStore: deps.readStore, itemData: deps.itemData, limits }),
    limits,
    parse(source) {
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
      return document;
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

export { InvalidQuery } from './errors.js';
export { DEFAULT_GRAPHQL_LIMITS, type GraphqlLimits } from './limits.js';
