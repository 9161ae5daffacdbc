import { expect } from 'chai';
import { DataItem } from 'arbundles';
import { withArlocalService } from '../support/arlocalService.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { twoLevels } from '../nested/support/nestedBundles.js';
import { nestedIndexed } from '../nested/support/indexed.js';

/**
 * End to end with arlocal as the gateway: an uploaded item whose payload is a bundle holding an item
 * whose payload is again a bundle is bundled, posted and mined; every nested item, at every depth,
 * has offsets that point at its own signed bytes in the bundle as arlocal serves it, and at its place
 * in its parent's payload.
 */
describe('nested bundles to an Arweave gateway (arlocal)', function () {
  this.timeout(120_000);
  const env = withArlocalService();

  it('gives every nested item offsets into the root bundle and into its parent', async () => {
    const nested = await twoLevels();
    const plain = await signedItem(signers.ethereum(), 'a plain item bundled beside the nested one');
    for (const item of [plain, nested.root]) {
      expect((await fetch(`${env.service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) })).status).to.equal(200);
    }
    // indexed in the background, after the upload answered
    await nestedIndexed(env.service, nested.root.id);

    await env.service.bundler.runOnce();
    await env.arlocal.mine(20);
    await env.service.bundler.runOnce();
    const rootStatus = await (await fetch(`${env.service.url}/tx/${nested.root.id}/status`)).json();
    expect(rootStatus).to.include({ status: 'FINALIZED', info: 'permanent' });
    const bundleId = rootStatus.bundleId as string;
    const bundle = Buffer.from(await env.arlocal.data(bundleId));

    const offsetsOf = async (id: string) => {
      const res = await fetch(`${env.service.url}/tx/${id}/offsets`);
      expect(res.status, id).to.equal(200);
      return res.json();
    };
    const originals = new Map([nested.first, nested.middle, nested.last, nested.inner1, nested.inner2].map((i) => [i.id, i]));
    expect(nested.expected.map((e) => e.id)).to.have.members([...originals.keys()]);

    for (const expected of nested.expected) {
      const offsets = await offsetsOf(expected.id);
      expect(offsets).to.deep.equal({
        rootBundleId: bundleId,
        startOffsetInRootBundle: rootStatus.startOffsetInRootBundle + expected.offsetInRootItem,
        rawContentLength: expected.rawContentLength,
        payloadContentType: expected.payloadContentType,
        payloadDataStart: expected.payloadDataStart,
        payloadContentLength: expected.rawContentLength - expected.payloadDataStart,
        parentDataItemId: expected.parentId,
        startOffsetInParentDataItemPayload: expected.startOffsetInParentDataItemPayload,
      });

      // the item itself, as the gateway serves the bundle
      const raw = bundle.subarray(offsets.startOffsetInRootBundle, offsets.startOffsetInRootBundle + offsets.rawContentLength);
      const parsed = new DataItem(raw);
      expect(parsed.id).to.equal(expected.id);
      expect(await parsed.isValid()).to.equal(true);
      expect(parsed.getStartOfData()).to.equal(offsets.payloadDataStart);
      expect(Buffer.compare(raw.subarray(offsets.payloadDataStart), originals.get(expected.id)!.rawData)).to.equal(0);

      // and where its parent's offsets say: the parent's payload start plus its offset there
      const parent = await offsetsOf(offsets.parentDataItemId);
      const fromParent = parent.startOffsetInRootBundle + parent.payloadDataStart + offsets.startOffsetInParentDataItemPayload;
      expect(fromParent).to.equal(offsets.startOffsetInRootBundle);
      expect(new DataItem(bundle.subarray(fromParent, fromParent + offsets.rawContentLength)).id).to.equal(expected.id);
    }
  });
});
