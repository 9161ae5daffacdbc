import { GraphQLError } from 'graphql';
import { createHandler, type Handler, type Request, type Response } from 'graphql-http';
import { ReadStoreUnavailable } from '../../ports/readStore.js';
import { InvalidQuery } from './errors.js';
import type { GraphqlQueries } from './queries.js';
import { fastExecute, serializedAnswer } from './execute.js';

/**
 * An error's message as the client sees it: a query's own faults (syntax, validation, a limit) say
 * what they are; anything else (a store down, a bug) is the contract's generic message, and is logged.
 */
function clientFacing(log: (message: string, error: unknown) => void) {
  return (error: Error): Error => {
    if (!(error instanceof GraphQLError)) return new GraphQLError(error.message);
    const cause = error.originalError;
    if (cause === undefined || cause instanceof InvalidQuery || cause instanceof GraphQLError) return error;
    // a store down is the contract's retryable answer; anything else its generic one, logged
    if (ReadStoreUnavailable.is(cause)) return new GraphQLError('Service unavailable', { path: error.path ?? [] });
    log('graphql: a resolver failed', cause);
    return new GraphQLError('Internal server error', { path: error.path ?? [] });
  };
}

/**
 * The media type graphql-http answers a request with, from its `Accept` header, as its handler picks it
 * (graphql-http 1.23.1 lib/handler.mjs `createHandler`: the first acceptable entry, `q` ignored); undefined:
 * none acceptable (graphql-http answers 406 before anything runs).
 */
export function acceptedMediaType(accept: string | null | undefined): 'application/json' | 'application/graphql-response+json' | undefined {
  for (const entry of (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',')) {
    const [mediaType, ...params] = entry.split(';');
    const charset = params.find((param) => param.includes('charset=')) || 'charset=utf-8';
    if (mediaType === 'application/graphql-response+json' && charset === 'charset=utf-8') return 'application/graphql-response+json';
    if (
      (mediaType === 'application/json' || mediaType === 'application/*' || mediaType === '*/*') &&
      (charset === 'charset=utf-8' || charset === 'charset=utf8')
    )
      return 'application/json';
  }
  return undefined;
}

/**
 * An answer without errors, serialized as graphql-http would (the same text: its replacer changes only
 * `Error` values, and an answer without errors has none): the text `fastExecute` wrote while walking, or
 * `JSON.stringify` without graphql-http's replacer, which it calls for every key and value of the page
 * (some 3,000 for 100 transactions with tags; a fifth of a page's time). Answers with errors are
 * graphql-http's own (`undefined` here).
 */
function answerWithoutErrors<Raw>(req: Request<Raw, undefined>, result: { data?: unknown; errors?: unknown }): Response | undefined {
  if (result.errors !== undefined || !('data' in result) || Object.keys(result).length !== 1) return undefined;
  const { headers } = req;
  const accept = typeof headers.get === 'function' ? headers.get('accept') : (headers as Record<string, unknown>).accept;
  const type = acceptedMediaType(typeof accept === 'string' ? accept : undefined);
  if (type === undefined) return undefined;
  return [serializedAnswer(result) ?? JSON.stringify(result), { status: 200, statusText: 'OK', headers: { 'content-type': `${type}; charset=utf-8` } }];
}

/**
 * GraphQL over HTTP (graphql-http) on the gateway schema: a request (GET `?query=`, POST JSON) in, the
 * answer's body and status out, whatever the web framework. The parse, validation, time budget and
 * errors are `graphql`'s; `monotonic` is the clock of the time budget.
 */
export function graphqlHandler<Raw>(graphql: GraphqlQueries, monotonic: () => number, log: (message: string, error: unknown) => void): Handler<Raw, undefined> {
  return createHandler<Raw, undefined, ReturnType<GraphqlQueries['context']>>({
    schema: graphql.schema,
    rootValue: graphql.rootValue,
    parse: ((source: string) => graphql.parse(source)) as never,
    validate: graphql.validate,
    execute: fastExecute,
    context: () => graphql.context(monotonic),
    formatError: clientFacing(log),
    onOperation: (req, _args, result) => answerWithoutErrors(req, result),
  });
}
