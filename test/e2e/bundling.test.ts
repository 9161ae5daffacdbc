import { expect } from 'chai';
import { withArlocalService } from '../support/arlocalService.js';
import { expectOffsetsInBundle } from '../support/bundleOffsets.js';
import { asBody, signedItem, signers } from '../support/items.js';
import { itemOfSize } from '../support/sizedItem.js';
import { createUpload, postChunks } from '../support/multipart.js';

/**
 * End to end with arlocal as the gateway: items uploaded (single and multi-part, several signature
 * types) are bundled, posted in chunks, mined until permanent, and their offsets point at their own
 * bytes in the bundle as arlocal serves it.
 */
describe('bundling to an Arweave gateway (arlocal)', function () {
  this.timeout(120_000);
  const env = withArlocalService();

  it('takes every item to FINALIZED/permanent, and each offset points at that item in the bundle', async () => {
    const items = [
      await signedItem(signers.arweave(), 'an arweave item', [{ name: 'Content-Type', value: 'text/plain' }]),
      await signedItem(signers.ethereum(), new Uint8Array(300_000).fill(3)),
      await signedItem(signers.solana(), new Uint8Array(0)),
      await itemOfSize(signers.ethereum(), 70_000),
    ];
    for (const item of items.slice(0, 3)) {
      expect((await fetch(`${env.service.url}/tx`, { method: 'POST', body: asBody(item.getRaw()) })).status).to.equal(200);
    }
    const multipart = items[3]!;
    const uploadId = await createUpload(env.service.url);
    await postChunks(env.service.url, uploadId, multipart.getRaw(), 30_000);
    expect((await fetch(`${env.service.url}/chunks/arweave/${uploadId}/-1`, { method: 'POST' })).status).to.equal(200);

    await env.service.bundler.runOnce();
    const pending = await Promise.all(items.map(async (i) => (await fetch(`${env.service.url}/tx/${i.id}/status`)).json()));
    const bundleId = pending[0].bundleId as string;
    expect(bundleId).to.match(/^[A-Za-z0-9_-]{43}$/);
    for (const status of pending) expect(status).to.include({ status: 'CONFIRMED', info: 'pending', bundleId });

    await env.arlocal.mine(20);
    await env.service.bundler.runOnce();
    for (const item of items) {
      const status = await (await fetch(`${env.service.url}/tx/${item.id}/status`)).json();
      expect(status).to.include({ status: 'FINALIZED', info: 'permanent', bundleId });
    }
    await expectOffsetsInBundle(env.service.url, env.arlocal, items, bundleId);
  });
});
