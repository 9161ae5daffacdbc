import { createHash } from 'node:crypto';
import { expect } from 'chai';
import Arweave from 'arweave';
import { arGql } from 'ar-gql';
import type { DataItem } from 'arbundles';
import { startTestService, type TestService } from '../support/testService.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { bundleBytes, bundleItem } from '../nested/support/nestedBundles.js';
import { nestedIndexed } from '../nested/support/indexed.js';

/**
 * The gateway GraphQL endpoint driven by real clients, unmodified: ar-gql (its `run`, `all` and `tx`,
 * dist/index.js of ar-gql 3.1.2: POST JSON, `all` pages with `after: $cursor` until
 * `hasNextPage` is false) and arweave-js (`arweave.api.post('graphql', { query })`).
 */

const ownerAddress = (item: DataItem) => createHash('sha256').update(item.rawOwner).digest('base64url');

async function upload(service: TestService, item: DataItem): Promise<void> {
  const res = await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) });
  expect(res.status).to.equal(200);
}

const NODE = `id anchor signature recipient owner { address key } fee { winston ar } quantity { winston ar }
  data { size type } tags { name value } block { id height timestamp previous } bundledIn { id } parent { id }`;

describe('GraphQL with real clients (ar-gql, arweave-js)', function () {
  let service: TestService;
  let gql: ReturnType<typeof arGql>;
  let arweave: Arweave;
  const app = `graphql-test-${Date.now()}`;
  const items: DataItem[] = [];

  before(async () => {
    service = await startTestService();
    gql = arGql({ endpointUrl: `${service.url}/graphql` });
    const url = new URL(service.url);
    arweave = Arweave.init({ host: url.hostname, port: Number(url.port), protocol: 'http' });
    // one owner, five items of one app tag, uploaded one after another
    const signer = signers.arweave();
    for (let i = 0; i < 5; i++) {
      const item = await signedItem(signer, `payload ${i}`, [
        { name: 'App-Name', value: app },
        { name: 'Content-Type', value: 'text/plain' },
        { name: 'Index', value: String(i) },
      ]);
      await upload(service, item);
      items.push(item);
    }
  });
  after(() => service.close());

  it('finds an item by id right after its receipt, every field as a gateway answers for a pending data item (ar-gql tx)', async () => {
    const item = await signedItem(signers.ethereum(), 'right after', [{ name: 'Content-Type', value: 'application/x-now' }]);
    await upload(service, item);
    const tx = await gql.tx(item.id);
    expect(tx).to.deep.equal({
      id: item.id,
      anchor: '',
      signature: Buffer.from(item.rawSignature).toString('base64url'),
      recipient: '',
      owner: { address: ownerAddress(item), key: Buffer.from(item.rawOwner).toString('base64url') },
      fee: { winston: '0', ar: '0.000000000000' },
      quantity: { winston: '0', ar: '0.000000000000' },
      data: { size: '11', type: 'application/x-now' },
      tags: [{ name: 'Content-Type', value: 'application/x-now' }],
      block: null,
      parent: null,
    });
  });

  it('answers null for an id it never accepted', async () => {
    const { data } = await gql.run('query($id: ID!) { transaction(id: $id) { id } }', { id: 'A'.repeat(43) });
    expect(data).to.deep.equal({ transaction: null });
  });

  it('finds items by tag, newest first, and pages through them with cursors (ar-gql all, first 2)', async () => {
    const query = `query($cursor: String, $app: String!) {
      transactions(tags: [{ name: "App-Name", values: [$app] }], first: 2, after: $cursor) {
        pageInfo { hasNextPage } edges { cursor node { id } } } }`;
    const pages: string[][] = [];
    const edges = await gql.all(query, { app }, async (page) => {
      pages.push(page.map((e) => e.node.id));
    });
    expect(edges).to.deep.equal([]);
    const newestFirst = items.map((i) => i.id).reverse();
    expect(pages).to.deep.equal([newestFirst.slice(0, 2), newestFirst.slice(2, 4), newestFirst.slice(4)]);
  });

  it('finds items by owner and by two tags at once, in ascending order when asked (arweave-js api.post)', async () => {
    const owner = ownerAddress(items[0]!);
    const query = `{ transactions(owners: ["${owner}"], tags: [{ name: "App-Name", values: ["${app}"] }, { name: "Index", values: ["1", "3"] }], sort: HEIGHT_ASC) {
      pageInfo { hasNextPage } edges { node { id tags { name value } } } } }`;
    const res = await arweave.api.post('graphql', { query });
    expect(res.status).to.equal(200);
    const body = res.data as { data: { transactions: { pageInfo: { hasNextPage: boolean }; edges: { node: { id: string } }[] } } };
    expect(body.data.transactions.pageInfo).to.deep.equal({ hasNextPage: false });
    expect(body.data.transactions.edges.map((e) => e.node.id)).to.deep.equal([items[1]!.id, items[3]!.id]);
  });

  it('serves GET /graphql?query= and /v1/graphql the same answer', async () => {
    const query = `{ transaction(id: "${items[2]!.id}") { id data { size type } } }`;
    for (const path of ['/graphql', '/v1/graphql']) {
      const res = await fetch(`${service.url}${path}?query=${encodeURIComponent(query)}`);
      expect(res.status, path).to.equal(200);
      expect(await res.json(), path).to.deep.equal({ data: { transaction: { id: items[2]!.id, data: { size: '9', type: 'text/plain' } } } });
    }
  });

  it("shows a nested item's parent and bundledIn as the item whose bundle holds it, and finds it by bundledIn", async () => {
    const inner = await signedItem(signers.solana(), 'nested', [{ name: 'Nested-Test', value: app }]);
    const other = await signedItem(signers.arweave(), 'other');
    const root = await bundleItem(signers.arweave(), await bundleBytes([other, inner]));
    await upload(service, root);
    await nestedIndexed(service, root.id);
    const { data } = await gql.run(`query($root: ID!) { transactions(bundledIn: [$root], sort: HEIGHT_ASC) { edges { node { ${NODE} } } } }`, {
      root: root.id,
    });
    const nodes = (data.transactions.edges as unknown as { node: Record<string, unknown> }[]).map((e) => e.node);
    expect(nodes.map((n) => n.id)).to.have.members([other.id, inner.id]);
    const found = nodes.find((n) => n.id === inner.id)!;
    expect(found).to.deep.include({
      owner: { address: ownerAddress(inner), key: Buffer.from(inner.rawOwner).toString('base64url') },
      signature: Buffer.from(inner.rawSignature).toString('base64url'),
      tags: [{ name: 'Nested-Test', value: app }],
      data: { size: '6', type: null },
      block: null,
      bundledIn: { id: root.id },
      parent: { id: root.id },
    });
    const byTag = await gql.run(`{ transactions(tags: [{ name: "Nested-Test", values: ["${app}"] }]) { edges { node { id bundledIn { id } } } } }`);
    expect(byTag.data.transactions.edges).to.deep.equal([{ node: { id: inner.id, bundledIn: { id: root.id } } }]);
  });
});
