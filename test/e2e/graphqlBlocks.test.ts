import { expect } from 'chai';
import { arGql } from 'ar-gql';
import { withArlocalService } from '../support/arlocalService.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { bundleBytes, bundleItem } from '../nested/support/nestedBundles.js';
import { nestedIndexed } from '../nested/support/indexed.js';

/**
 * End to end with arlocal as the gateway: an item and an item nested in an uploaded bundle are
 * answered by GraphQL from their receipts with no block, and once their bundle is permanent with the
 * block arlocal mined it in (`GET /tx/{id}/status`, `GET /block/hash/{id}` of arlocal) and the bundle;
 * the nested item is then found by its root's block.
 */
describe('GraphQL blocks of items made permanent on an Arweave gateway (arlocal)', function () {
  this.timeout(120_000);
  const env = withArlocalService();

  it('fills block and bundledIn once the bundle is permanent: the block arlocal mined it in', async () => {
    const plain = await signedItem(signers.ethereum(), 'a plain item', [{ name: 'E2E', value: 'graphql' }]);
    const inner = await signedItem(signers.arweave(), 'nested item', [{ name: 'E2E', value: 'graphql-nested' }]);
    const root = await bundleItem(signers.arweave(), await bundleBytes([inner]));
    for (const item of [plain, root]) {
      expect((await fetch(`${env.service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) })).status).to.equal(200);
    }
    await nestedIndexed(env.service, root.id);
    const gql = arGql({ endpointUrl: `${env.service.url}/graphql` });
    const query = `query($ids: [ID!]) { transactions(ids: $ids, sort: HEIGHT_ASC) { edges { node { id block { id height timestamp previous } bundledIn { id } } } } }`;
    const nodes = async () =>
      (await gql.run(query, { ids: [plain.id, root.id, inner.id] })).data.transactions.edges.map(
        (e) => e.node as unknown as { id: string; block: unknown; bundledIn: unknown },
      );
    expect(await nodes()).to.have.deep.members([
      { id: plain.id, block: null, bundledIn: null },
      { id: root.id, block: null, bundledIn: null },
      { id: inner.id, block: null, bundledIn: { id: root.id } },
    ]);

    await env.service.bundler.runOnce();
    await env.arlocal.mine(20);
    await env.service.bundler.runOnce();
    const statusOf = async (id: string) =>
      (await (await fetch(`${env.service.url}/tx/${id}/status`)).json()) as { status: string; info: string; bundleId: string };
    const [plainStatus, rootStatus] = [await statusOf(plain.id), await statusOf(root.id)];
    for (const status of [plainStatus, rootStatus]) expect(status).to.include({ status: 'FINALIZED', info: 'permanent' });
    await env.service.projections.waitFor(await env.service.eventStore.headPosition(), 30_000);

    /** the block holding a transaction, as arlocal describes it */
    const blockOf = async (txId: string) => {
      const onChain = await (await fetch(`${env.arlocal.url}/tx/${txId}/status`)).json();
      const block = await (await fetch(`${env.arlocal.url}/block/hash/${onChain.block_indep_hash}`)).json();
      expect(onChain.block_height).to.be.a('number');
      return { id: onChain.block_indep_hash, height: onChain.block_height, timestamp: block.timestamp, previous: block.previous_block };
    };
    const rootBlock = await blockOf(rootStatus.bundleId);
    expect(await nodes()).to.have.deep.members([
      { id: plain.id, block: await blockOf(plainStatus.bundleId), bundledIn: { id: plainStatus.bundleId } },
      { id: root.id, block: rootBlock, bundledIn: { id: rootStatus.bundleId } },
      { id: inner.id, block: rootBlock, bundledIn: { id: root.id } },
    ]);
    // sorted and filtered by its root's block, as gateways do
    const inRange = await gql.run(
      `query($min: Int, $max: Int) { transactions(tags: [{ name: "E2E", values: ["graphql-nested"] }], block: { min: $min, max: $max }) { edges { node { id } } } }`,
      { min: rootBlock.height, max: rootBlock.height },
    );
    expect(inRange.data.transactions.edges.map((e) => e.node.id)).to.deep.equal([inner.id]);
  });
});
