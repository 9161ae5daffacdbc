/**
 * The GraphQL benchmark's server (scripts/bench/graphql.ts), in a process of its own as the service
 * is, so that the client's work (its requests, its parse of each answer, its collections) does not
 * run in the server's event loop: the GraphQL route's handler (`graphqlHandler`: graphql-http on the
 * service's schema, parse, validation and limits) over the SQLite read store at `GRAPHQL_BENCH_STORE`,
 * on a plain node:http server (scripts/ do not import the web layer); `GET /bare?key=`, the same
 * lookup as a bare indexed query (the key's 101 newest documents, `findByKey`, answered as their JSON,
 * as a bare route would); and `GET /ping`, an empty answer, for the HTTP round trip alone. Started
 * with tsx's loader; prints `listening on <url>`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openSqliteReadStore } from '../../../src/adapters/sqlite/readStore.js';
import type { ItemDataQueries } from '../../../src/queries/itemData.js';
import { createGraphqlQueries, graphqlHandler } from '../../../src/queries/graphql/index.js';
import { collectionOf } from '../../../projections/definition.js';
import { graphqlItemsProjection } from '../../../projections/graphqlItems.js';

const path = process.env['GRAPHQL_BENCH_STORE'];
if (!path) throw new Error('GRAPHQL_BENCH_STORE: the read store to serve');
const store = openSqliteReadStore({ path });
const noBlobs: ItemDataQueries = { itemPlace: async () => undefined, readPayload: async () => undefined, header: async () => undefined };
const handle = graphqlHandler<IncomingMessage>(
  createGraphqlQueries({ readStore: store, itemData: noBlobs }),
  () => performance.now(),
  () => undefined,
);

const COLLECTION = collectionOf(graphqlItemsProjection);
const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' };

const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  if (req.url?.startsWith('/bare?')) {
    const key = new URL(req.url, 'http://bench').searchParams.get('key') ?? '';
    req.resume();
    store.findByKey(COLLECTION, key, { limit: 101, descending: true }).then(
      (found) => res.writeHead(200, JSON_TYPE).end(JSON.stringify(found.map(({ id, sort, doc }) => ({ id, sort, doc })))),
      (error: unknown) => res.writeHead(500).end(String(error)),
    );
    return;
  }
  if (req.url === '/ping') {
    req.resume().on('end', () => res.writeHead(200, JSON_TYPE).end('{}'));
    return;
  }
  const parts: Buffer[] = [];
  req.on('data', (chunk: Buffer) => parts.push(chunk));
  req.on('end', () => {
    const headers = { get: (key: string) => (req.headers[key.toLowerCase()] as string | undefined) ?? null };
    void handle({
      url: req.url ?? '/',
      method: req.method ?? 'GET',
      headers,
      body: Buffer.concat(parts).toString('utf8'),
      raw: req,
      context: undefined,
    }).then(([body, init]) => res.writeHead(init.status, init.headers as Record<string, string>).end(body ?? ''));
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void store.close().then(() => process.exit(0));
});
