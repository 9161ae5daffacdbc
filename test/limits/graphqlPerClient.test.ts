import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { expect } from 'chai';
import express from 'express';
import { graphqlRoutes } from '../../src/http/graphql.js';
import { createGraphqlQueries } from '../../src/queries/graphql/index.js';
import { ReadStoreUnavailable, type ReadStore } from '../../src/ports/readStore.js';
import type { ItemDataQueries } from '../../src/queries/itemData.js';
import { eventually } from '../support/eventually.js';

/**
 * GraphQL requests are bounded per client (past `maxConcurrentPerClient` in flight, 429 with
 * `Retry-After` and a GraphQL error, while the requests already running finish), and a failing store
 * is answered with the contract's words, never its detail.
 */
describe('GraphQL requests in flight per client', function () {
  let server: Server;
  let url: string;
  let release: () => void = () => undefined;
  let waiting = 0;
  before(async () => {
    const gate = () =>
      new Promise<void>((resolve) => {
        waiting++;
        const previous = release;
        release = () => {
          previous();
          resolve();
        };
      });
    // a read store whose searches wait until the test lets them go
    const store: Pick<ReadStore, 'get' | 'getMany' | 'findByKey'> = {
      get: async () => undefined,
      getMany: async () => new Map(),
      findByKey: async () => {
        await gate();
        return [];
      },
    };
    const noBlobs: ItemDataQueries = { itemPlace: async () => undefined, readPayload: async () => undefined, header: async () => undefined };
    const router = express.Router();
    graphqlRoutes(router, createGraphqlQueries({ readStore: store, itemData: noBlobs, limits: { maxConcurrentPerClient: 2 } }));
    server = createServer(express().use(router));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  const search = () =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ transactions { edges { cursor } } }' }) });

  it('answers 429 with Retry-After past 2 requests in flight, and the running ones complete', async () => {
    const running = [search(), search()];
    await eventually(
      async () => waiting,
      (n) => n === 2,
      'two searches waiting on the read store',
    );
    const refused = await search();
    expect(refused.status).to.equal(429);
    expect(refused.headers.get('retry-after')).to.equal('1');
    expect(await refused.json()).to.deep.equal({ errors: [{ message: '2 GraphQL requests in flight from this client, the most at once' }] });
    release();
    for (const res of await Promise.all(running)) {
      expect(res.status).to.equal(200);
      expect(await res.json()).to.deep.equal({ data: { transactions: { edges: [] } } });
    }
    // its requests done, the client is served again
    const again = search();
    await eventually(
      async () => waiting,
      (n) => n === 3,
      'the next search waiting on the read store',
    );
    release();
    expect((await again).status).to.equal(200);
  });
});

describe('GraphQL answers when the read store fails', function () {
  let server: Server;
  let url: string;
  let failure: Error = new Error('unset');
  const logged: string[] = [];
  before(async () => {
    const store: Pick<ReadStore, 'get' | 'getMany' | 'findByKey'> = {
      get: async () => {
        throw failure;
      },
      getMany: async () => new Map(),
      findByKey: async () => [],
    };
    const noBlobs: ItemDataQueries = { itemPlace: async () => undefined, readPayload: async () => undefined, header: async () => undefined };
    const router = express.Router();
    graphqlRoutes(router, createGraphqlQueries({ readStore: store, itemData: noBlobs }), (message, error) =>
      logged.push(`${message}: ${(error as Error).message}`),
    );
    server = createServer(express().use(router));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  const lookUp = async () =>
    (await fetch(`${url}?query=${encodeURIComponent('{ transaction(id: "x") { id } }')}`)).json() as Promise<{ data: unknown; errors: { message: string }[] }>;

  it('answers a store down as Service unavailable, and any other failure as Internal server error without its detail (logged)', async () => {
    failure = new ReadStoreUnavailable('the read store file cannot be used now (SQLITE_BUSY)');
    const down = await lookUp();
    expect(down.data).to.deep.equal({ transaction: null });
    expect(down.errors.map((e) => e.message)).to.deep.equal(['Service unavailable']);
    failure = new Error('secret internal detail at /var/lib/x');
    const broken = await lookUp();
    expect(broken.errors.map((e) => e.message)).to.deep.equal(['Internal server error']);
    expect(JSON.stringify(broken)).not.to.include('secret');
    expect(logged).to.deep.equal(['graphql: a resolver failed: secret internal detail at /var/lib/x']);
  });
});
