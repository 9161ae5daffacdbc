import { expect } from 'chai';
import { DataItem } from 'arbundles';
import { withArlocalService } from '../support/arlocalService.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { bundleBytes, bundleItem } from '../nested/support/nestedBundles.js';
import { nestedIndexed } from '../nested/support/indexed.js';
import { auditOf, runScript } from '../audit/support.js';
import { SERVICE_WALLET_FILE } from '../support/testService.js';

/**
 * Items with tags arbundles accepts but the ANS-104 text does not (empty names and values, more than
 * 128 tags), accepted under the default tag rules, go all the way: into a bundle that arbundles
 * verifies as a gateway serves it, nested in an uploaded bundle (indexed with their offsets), and
 * past the audit, which re-verifies them under the rules they were accepted under.
 */
describe('items with tags only arbundles accepts, to an Arweave gateway (arlocal)', function () {
  this.timeout(120_000);
  const env = withArlocalService();

  it('bundles, indexes and audits them like any other item', async () => {
    const many = Array.from({ length: 129 }, (_, i) => ({ name: `T${i}`, value: '' }));
    const items = [
      await signedItem(signers.arweave(), 'empty value', [
        { name: 'Content-Type', value: 'text/plain' },
        { name: 'App-Version', value: '' },
      ]),
      await signedItem(signers.ethereum(), 'empty name', [{ name: '', value: 'nameless' }]),
      await signedItem(signers.solana(), 'many tags', many),
    ];
    const inner = await signedItem(signers.ethereum(), 'nested, with an empty tag', [{ name: '', value: '' }]);
    const root = await bundleItem(signers.arweave(), await bundleBytes([inner]));
    for (const item of [...items, root]) {
      expect((await fetch(`${env.service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) })).status).to.equal(200);
    }
    await nestedIndexed(env.service, root.id);

    await env.service.bundler.runOnce();
    await env.arlocal.mine(20);
    await env.service.bundler.runOnce();
    const statuses = await Promise.all([...items, root].map(async (i) => (await fetch(`${env.service.url}/tx/${i.id}/status`)).json()));
    const bundleId = statuses[0].bundleId as string;
    for (const status of statuses) expect(status).to.include({ status: 'FINALIZED', info: 'permanent', bundleId });
    const bundle = Buffer.from(await env.arlocal.data(bundleId));

    for (const item of [...items, inner]) {
      const res = await fetch(`${env.service.url}/tx/${item.id}/offsets`);
      expect(res.status, item.id).to.equal(200);
      const offsets = await res.json();
      expect(offsets.rootBundleId).to.equal(bundleId);
      const raw = bundle.subarray(offsets.startOffsetInRootBundle, offsets.startOffsetInRootBundle + offsets.rawContentLength);
      const parsed = new DataItem(raw);
      expect(parsed.id).to.equal(item.id);
      expect(await DataItem.verify(raw)).to.equal(true);
      expect(parsed.tags).to.deep.equal(item.tags);
      expect(offsets.payloadDataStart).to.equal(parsed.getStartOfData());
    }
    const nested = await (await fetch(`${env.service.url}/tx/${inner.id}/offsets`)).json();
    expect(nested.parentDataItemId).to.equal(root.id);

    // the dashboard's item page and its data
    for (const item of items) {
      const page = await fetch(`${env.service.url}/dashboard/tx/${item.id}`);
      expect(page.status).to.equal(200);
      const data = await fetch(`${env.service.url}/dashboard/api/tx/${item.id}`);
      expect(data.status).to.equal(200);
      expect(JSON.stringify(await data.json())).to.include(item.id);
    }

    const { findings } = await auditOf(env.service, { blobGraceMs: 0 });
    expect(findings).to.deep.equal([]);
    // an operator who turns STRICT_TAGS on later: the audit still reads these items as they were accepted
    const strictAudit = await runScript('audit', ['--blob-grace-minutes', '0'], {
      DATA_DIR: env.service.dataDir,
      WALLET_FILE: SERVICE_WALLET_FILE,
      STRICT_TAGS: 'true',
    });
    expect(strictAudit.code, strictAudit.stdout + strictAudit.stderr).to.equal(0);
  });
});
