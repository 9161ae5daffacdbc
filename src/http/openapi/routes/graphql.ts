import { z } from 'zod';
import { defineRoute } from '../route.js';

/** The gateway GraphQL endpoint (CONTRACT.md section 10; docs/graphql.md). */

const GraphqlRequestBody = z.object({
  query: z.string().describe('the GraphQL document (at most 16 KiB of text)'),
  variables: z.record(z.string(), z.unknown()).optional(),
  operationName: z.string().optional(),
});
const GraphqlResponseBody = z.object({
  data: z.record(z.string(), z.unknown()).nullable().optional(),
  errors: z.array(z.object({ message: z.string() }).passthrough()).optional(),
});
const answers = {
  200: {
    description:
      'the result, or `{ errors: [...] }`: a query that does not parse or validate, or passes a limit (depth, fields, `first` over 100, list lengths, examined items, time)',
    content: { contentType: 'application/json', schema: GraphqlResponseBody },
  },
  400: {
    description: 'no query, or a request GraphQL over HTTP cannot read (`{ errors: [...] }`)',
    content: { contentType: 'application/json', schema: GraphqlResponseBody },
  },
  413: { description: 'a body over 64 KiB (`{ errors: [...] }`)', content: { contentType: 'application/json', schema: GraphqlResponseBody } },
  429: {
    description: 'this client has 4 GraphQL requests in flight already (`Retry-After`, `{ errors: [...] }`)',
    content: { contentType: 'application/json', schema: GraphqlResponseBody },
  },
} as const;
const common = {
  path: '/graphql',
  tag: 'items',
  summary: 'Gateway GraphQL',
  description:
    "The Arweave gateway schema (`transaction(id)`, `transactions(ids, owners, recipients, tags, bundledIn, block, first, after, sort)`) over every accepted item, nested ones included, from its receipt on; `block` and `bundledIn` are null until the item's bundle is known and permanent. Absent with `GRAPHQL_ENABLED=false` (404 `Not Found`, as an unknown route).",
  responses: answers,
};

export const graphqlGetRoute = defineRoute({
  ...common,
  operationId: 'getGraphql',
  method: 'get',
  query: {
    query: { schema: z.string(), description: 'the GraphQL document', required: true },
    variables: { schema: z.string(), description: 'JSON object of the variables' },
    operationName: { schema: z.string(), description: 'the operation to run' },
  },
});

export const graphqlPostRoute = defineRoute({
  ...common,
  operationId: 'postGraphql',
  method: 'post',
  requestBody: { contentType: 'application/json', schema: GraphqlRequestBody, description: 'GraphQL over HTTP', required: true },
});
