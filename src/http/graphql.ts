import type { Request, Response, Router } from 'express';
import type { Request as GraphqlRequest } from 'graphql-http';
import { clientKeyOf } from '../domain/clientKey.js';
import { InvalidRequest } from '../domain/errors.js';
import { graphqlHandler, type GraphqlQueries } from '../queries/graphql/index.js';
import { systemClocks } from '../clock.js';
import { readSmallBody } from './smallBody.js';
import { serve } from './openapi/serve.js';
import { graphqlGetRoute, graphqlPostRoute } from './openapi/routes/graphql.js';

/** answered before GraphQL runs, in its `{ errors }` shape (GraphQL over HTTP), JSON for every client */
const refuse = (res: Response, status: number, message: string, headers: Record<string, string> = {}) =>
  res
    .status(status)
    .set({ 'Content-Type': 'application/json; charset=utf-8', ...headers })
    .send(JSON.stringify({ errors: [{ message }] }));

/**
 * `GET` and `POST /graphql` (the router is mounted at the root and under /v1): graphql-http runs the
 * request (GraphQL over HTTP: GET `?query=`, POST JSON), with the bounded parse, the time budget and
 * the limits of `graphql` (docs/graphql.md). The body is read here, bounded, before graphql-http sees
 * it (its own reader keeps all of a body, however large); a client has a few requests in flight at most.
 */
export function graphqlRoutes(router: Router, graphql: GraphqlQueries, log: (message: string, error: unknown) => void = () => undefined): void {
  const { limits } = graphql;
  const handle = graphqlHandler<Request>(graphql, systemClocks.monotonic, log);
  const inFlight = new Map<string, number>();

  const answer = async (req: Request, res: Response, body: string | undefined) => {
    const request: GraphqlRequest<Request, undefined> = {
      url: req.originalUrl,
      method: req.method,
      headers: { get: (key: string) => req.get(key) ?? null },
      body: body ?? null,
      raw: req,
      context: undefined,
    };
    const [text, init] = await handle(request);
    res.status(init.status);
    for (const [name, value] of Object.entries(init.headers ?? {})) res.set(name, value);
    res.set('Cache-Control', 'no-store');
    res.send(text ?? '');
  };

  const bounded = (read: (req: Request) => Promise<string | undefined>) => async (req: Request, res: Response) => {
    const client = clientKeyOf(req.ip ?? req.socket.remoteAddress);
    const count = inFlight.get(client) ?? 0;
    if (count >= limits.maxConcurrentPerClient) {
      refuse(res, 429, `${count} GraphQL requests in flight from this client, the most at once`, { 'Retry-After': '1' });
      return;
    }
    inFlight.set(client, count + 1);
    try {
      let body: string | undefined;
      try {
        body = await read(req);
      } catch (error) {
        if (!(error instanceof InvalidRequest)) throw error;
        refuse(res, 413, `the request body is over ${limits.maxBodyBytes} bytes, the most a GraphQL request may send`);
        return;
      }
      await answer(req, res, body);
    } finally {
      const left = (inFlight.get(client) ?? 1) - 1;
      if (left === 0) inFlight.delete(client);
      else inFlight.set(client, left);
    }
  };

  serve(
    router,
    graphqlGetRoute,
    bounded(async () => undefined),
  );
  serve(
    router,
    graphqlPostRoute,
    bounded((req) => readSmallBody(req, limits.maxBodyBytes)),
  );
}
