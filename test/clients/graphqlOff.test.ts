import { expect } from 'chai';
import { startTestService, type TestService } from '../support/testService.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { checkpointOf, collectionOf, graphqlItemsProjection, txStatusProjection } from '../../projections/index.js';

/**
 * GRAPHQL_ENABLED=false: the GraphQL API is absent (its routes answer as unknown ones, CONTRACT.md
 * section 1: 404 `Not Found`), and its read model is neither built nor waited for: an upload is
 * answered, projected everywhere else, and `/ready` counts no lag for `graphql-items`.
 */
describe('GraphQL turned off (GRAPHQL_ENABLED=false)', function () {
  let service: TestService;
  const query = '{ transactions(first: 1) { edges { node { id } } } }';

  before(async () => {
    // READY_MAX_LAG 0: a read model not run (one event behind) would make /ready answer 503
    service = await startTestService({ GRAPHQL_ENABLED: 'false', READY_MAX_LAG: '0' });
  });
  after(() => service.close());

  it('answers /graphql and /v1/graphql, GET and POST, exactly as an unknown route', async () => {
    const unknown = await fetch(`${service.url}/no-such-route`);
    const expected = { status: unknown.status, body: await unknown.text() };
    expect(expected.status).to.equal(404);
    for (const path of ['/graphql', '/v1/graphql']) {
      const get = await fetch(`${service.url}${path}?query=${encodeURIComponent(query)}`);
      expect({ status: get.status, body: await get.text() }, `GET ${path}`).to.deep.equal(expected);
      const post = await fetch(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
      expect({ status: post.status, body: await post.text() }, `POST ${path}`).to.deep.equal(expected);
    }
  });

  it('writes no graphql-items document for an accepted item, while the other read models show it, and is ready', async () => {
    const item = await signedItem(signers.arweave(), 'not indexed for GraphQL', [{ name: 'App-Name', value: 'graphql-off' }]);
    const res = await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) });
    expect(res.status).to.equal(200);
    // the upload is answered once its events are projected (one process): its status is there already
    expect((await service.readStore.get(collectionOf(txStatusProjection), item.id))?.doc).to.not.equal(undefined);
    expect(await service.readStore.get(collectionOf(graphqlItemsProjection), item.id)).to.equal(undefined);
    expect(await service.readStore.scan(collectionOf(graphqlItemsProjection), { limit: 10 })).to.deep.equal([]);
    expect(await service.readStore.getCheckpoint(checkpointOf(graphqlItemsProjection))).to.equal(undefined);
    const ready = await fetch(`${service.url}/ready`);
    expect(ready.status, await ready.text()).to.equal(200);
    // the dashboard's lag: every read model run, caught up; graphql-items not among them
    const { projector } = (await (await fetch(`${service.url}/dashboard/api/summary`)).json()) as {
      projector: { behind: string; byProjection: Record<string, string> };
    };
    expect(projector.behind).to.equal('0');
    expect(Object.keys(projector.byProjection)).to.not.include(graphqlItemsProjection.name);
    expect(Object.keys(projector.byProjection)).to.include(txStatusProjection.name);
  });
});
