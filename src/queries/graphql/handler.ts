import { GraphQLError } from 'graphql';
import { createHandler, type Handler } from 'graphql-http';
import { ReadStoreUnavailable } from '../../ports/readStore.js';
import { InvalidQuery } from './errors.js';
import type { GraphqlQueries } from './queries.js';
import { fastExecute } from './execute.js';

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
  });
}
