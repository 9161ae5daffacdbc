/** The gateway GraphQL query side: `createGraphqlQueries` (schema, resolvers, limits) and its HTTP handler. */
export { createGraphqlQueries, type GraphqlQueries } from './queries.js';
export { InvalidQuery } from './errors.js';
export { DEFAULT_GRAPHQL_LIMITS, type GraphqlLimits } from './limits.js';
export { graphqlHandler } from './handler.js';
