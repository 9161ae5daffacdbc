import { expect } from 'chai';
import { startTestService, type TestService } from '../support/testService.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { itemOfSize } from '../support/sizedItem.js';
import { credit, ethAddress } from '../audit/support.js';
import { bundleBytes, bundleItem, expectedPlaces } from './support/nestedBundles.js';
import { fakeBundle } from './support/fakeEntries.js';
import { indexPartsOf, isIndexed, nestedIndexed } from './support/indexed.js';

const upload = async (service: TestService, raw: Uint8Array) => {
  const res = await fetch(`${service.url}/tx`, { method: 'POST', body: asBody(raw) });
  await res.arrayBuffer();
  return res.status;
};

describe('indexing nested items in the background', function () {
  this.timeout(180_000);

  describe('a bundle item of thousands of entries', () => {
    let service: TestService;
    before(async () => {
      service = await startTestService({ NESTED_FREE_MAX_ITEMS: '3000' });
    });
    after(() => service?.close());

    it('leaves queries answered while its entries are being checked, and records every one of them', async () => {
      // 2800 entries an attacker makes for free: the right ids, random signatures, 504 KB in all
      const root = await bundleItem(signers.ethereum(), fakeBundle(2800));
      expect(root.getRaw().length).to.be.below(517_120);
      expect(await upload(service, root.getRaw())).to.equal(200);
      let answeredWhileIndexing = 0;
      const until = Date.now() + 120_000;
      for (;;) {
        const info = await fetch(`${service.url}/info`);
        expect(info.status).to.equal(200);
        await info.arrayBuffer();
        // counted only when the index was still incomplete after the answer arrived
        if (isIndexed(await indexPartsOf(service, root.id))) break;
        answeredWhileIndexing++;
        if (Date.now() > until) throw new Error('the index was not complete within 120 s');
      }
      expect(answeredWhileIndexing).to.be.at.least(5);
      const parts = await nestedIndexed(service, root.id);
      expect(parts.map((p) => [p.items.length, p.unindexed?.length, p.more])).to.deep.equal([
        // parts of at most 512 KiB each (PART_MAX_BYTES)
        [0, 2594, true],
        [0, 206, undefined],
      ]);
    });
  });

  describe('the bound on entries indexed for a free item', () => {
    let service: TestService;
    before(async () => {
      service = await startTestService({ FREE_UPLOAD_LIMIT_BYTES: '5000', PRICE_WINC_PER_BYTE: '10', NESTED_FREE_MAX_ITEMS: '2' });
    });
    after(() => service?.close());

    const smallItems = () => Promise.all([1, 2, 3, 4].map((n) => signedItem(signers.ethereum(), `small item ${n}`)));

    it('indexes the first entries of a free item up to NESTED_FREE_MAX_ITEMS and records the rest as not indexed, with the reason', async () => {
      const items = await smallItems();
      const root = await bundleItem(signers.ethereum(), await bundleBytes(items));
      expect(root.getRaw().length).to.be.at.most(5000);
      expect(await upload(service, root.getRaw())).to.equal(200);
      const [part] = await nestedIndexed(service, root.id);
      expect(part!.items).to.deep.equal(expectedPlaces(root, 0, items, 1).slice(0, 2));
      expect(part!.unindexed).to.deep.equal([{ id: root.id, reason: '2 of its 4 items are not indexed: at most 2 are indexed under a free item' }]);
    });

    it('indexes every entry of a paid item', async () => {
      const items = [...(await smallItems()), await itemOfSize(signers.ethereum(), 6000)];
      const signer = signers.ethereum();
      const root = await bundleItem(signer, await bundleBytes(items));
      await credit(service, ethAddress(root), 1_000_000n);
      expect(await upload(service, root.getRaw())).to.equal(200);
      const [part] = await nestedIndexed(service, root.id);
      expect(part!.items).to.deep.equal(expectedPlaces(root, 0, items, 1));
      expect(part!.unindexed).to.equal(undefined);
    });
  });
});
