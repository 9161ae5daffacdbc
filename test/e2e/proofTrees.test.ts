import { expect } from 'chai';
import { bundleEvents, bundleState, bundlerNodesOnArlocal, ofType, plansOf, uploadItems, type BundlerNode } from '../bundler/harness.js';
import { treeBlobKey } from '../../src/bundling/index.js';
import { itemBlobKey } from '../../src/domain/ids.js';

async function* bytes(data: Uint8Array) {
  yield data;
}

/**
 * The chunk hashes a proof is made from (`bundle-trees/<planId>` in the blob store) follow the
 * bundle: kept when it is prepared, kept again when a restarted bundler computes its tree again (a
 * bundle prepared by a version that kept none gets its proofs), and deleted when it is dropped.
 */
describe('proof trees kept by the bundler (arlocal behind a faulty proxy)', function () {
  this.timeout(60_000);
  const suite = bundlerNodesOnArlocal(100_000);

  /** a bundle prepared, its header refused by the gateway, `meanwhile` done, the process stopped */
  async function stoppedPrepared(meanwhile: (first: BundlerNode, planId: string, ids: string[]) => Promise<void>) {
    const first = await suite.start();
    await suite.arlocal.mint(first.service.walletAddress, '100000000000000000');
    const items = await uploadItems(first.service, [300_000, 2_000]);
    suite.gateway.set('tx', 'refuse');
    await first.pass();
    const [planId] = await plansOf(first.service, items[0]!.id);
    expect((await bundleState(first.service, planId!))?.status).to.equal('prepared');
    expect(await first.service.blobStore.stat(treeBlobKey(planId!))).to.deep.equal({ size: 8 + 40 * (2 + 2 + 1) + 32 });
    expect((await fetch(`${first.service.url}/tx/${items[0]!.id}/proof`)).status).to.equal(200);
    const ids = items.map((i) => i.id);
    await meanwhile(first, planId!, ids);
    await first.stop();
    suite.gateway.heal();
    return { first, planId: planId!, ids };
  }

  it('keeps the tree again when a restarted bundler computes it, so a bundle prepared without one gets proofs', async () => {
    // as a version that kept no trees left it
    const { first, planId, ids } = await stoppedPrepared((node, planId) => node.service.blobStore.delete(treeBlobKey(planId)));
    const second = await suite.start({ dataDir: first.dataDir });
    expect((await fetch(`${second.service.url}/tx/${ids[0]}/proof`)).status).to.equal(404);
    await second.pass();
    expect((await bundleState(second.service, planId))?.status).to.equal('seeded');
    const res = await fetch(`${second.service.url}/tx/${ids[0]}/proof`);
    expect(res.status).to.equal(200);
    expect((await res.json()).chunks).to.have.length(2);
  });

  it("deletes a dropped bundle's tree", async () => {
    // the small item's bytes change: found when the next process computes the tree again
    const { first, planId } = await stoppedPrepared(async (node, _, ids) => {
      const blob = itemBlobKey(ids[1]!);
      const size = (await node.service.blobStore.stat(blob))!.size;
      await node.service.blobStore.put(blob, bytes(new Uint8Array(size).fill(9)));
    });
    const second = await suite.start({ dataDir: first.dataDir });
    await second.pass();
    expect(ofType(await bundleEvents(second.service), 'BundleDropped').map((e) => e.data.planId)).to.deep.equal([planId]);
    expect(await second.service.blobStore.stat(treeBlobKey(planId))).to.equal(undefined);
  });
});
